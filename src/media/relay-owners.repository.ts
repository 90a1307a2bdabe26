import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, returning, sql, sqlOne } from '../common/database';

export interface RelayOwner {
  instanceId: string;
  internalUrl: string;
  /** The lease has not expired by the database's clock. */
  live: boolean;
}

export interface Claimed {
  /** The instance that held the lease before this claim (null for a new lease, or this instance's own renewal). */
  previousInstance: string | null;
  /** When that instance last renewed the lease: the last moment it was known alive. */
  previousRenewedAt: Date | null;
}

/**
 * The leases on live webinars' relays (media_relay_owners). Times are the database's own (`now()`), so the
 * instances' clocks never decide who owns what. Rows are keyed by the globally unique webinar id and hold no
 * partner data: the relay's routing is not a statement a partner scopes.
 */
@Injectable()
export class RelayOwnersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async owner(webinarId: string): Promise<RelayOwner | null> {
    const row = await sqlOne<{ instance_id: string; internal_url: string; live: boolean }>(
      this.dataSource,
      `SELECT instance_id, internal_url, expires_at > now() AS live FROM media_relay_owners WHERE webinar_id = $1`,
      [webinarId],
    );
    return row && { instanceId: row.instance_id, internalUrl: row.internal_url, live: row.live };
  }

  /**
   * Takes (or renews) the lease for `instanceId`: granted when there is none, when it is this instance's already,
   * when it has expired, or when it is held by `deadInstance` (an owner whose address refused the connection).
   * Null when another live instance holds it. One statement, so two instances claiming at once cannot both win.
   */
  async claim(webinarId: string, instanceId: string, internalUrl: string, ttlMs: number, deadInstance: string | null): Promise<Claimed | null> {
    const [row] = await sql<{ previous_instance: string | null; previous_renewed_at: Date | null }>(
      this.dataSource,
      `WITH prev AS (SELECT instance_id, renewed_at FROM media_relay_owners WHERE webinar_id = $1)
       INSERT INTO media_relay_owners (webinar_id, instance_id, internal_url, renewed_at, expires_at)
       VALUES ($1, $2, $3, now(), now() + $4 * interval '1 millisecond')
       ON CONFLICT (webinar_id) DO UPDATE
         SET instance_id = EXCLUDED.instance_id, internal_url = EXCLUDED.internal_url, renewed_at = EXCLUDED.renewed_at, expires_at = EXCLUDED.expires_at
         WHERE media_relay_owners.instance_id = EXCLUDED.instance_id OR media_relay_owners.expires_at <= now() OR media_relay_owners.instance_id = $5
       RETURNING (SELECT instance_id FROM prev WHERE instance_id <> $2) AS previous_instance,
                 (SELECT renewed_at FROM prev WHERE instance_id <> $2) AS previous_renewed_at`,
      [webinarId, instanceId, internalUrl, ttlMs, deadInstance],
    );
    return row ? { previousInstance: row.previous_instance, previousRenewedAt: row.previous_renewed_at } : null;
  }

  /** The heartbeat: extends every lease the instance still holds and answers which those are. */
  async renew(instanceId: string, ttlMs: number): Promise<string[]> {
    const rows = await returning<{ webinar_id: string }>(
      this.dataSource,
      `UPDATE media_relay_owners SET renewed_at = now(), expires_at = now() + $2 * interval '1 millisecond' WHERE instance_id = $1 RETURNING webinar_id`,
      [instanceId, ttlMs],
    );
    return rows.map((r) => r.webinar_id);
  }

  /** The webinar ended: nobody owns its relay any more. */
  async release(webinarId: string): Promise<void> {
    await affected(this.dataSource, `DELETE FROM media_relay_owners WHERE webinar_id = $1`, [webinarId]);
  }

  /** An instance shutting down hands every webinar it owns back at once. */
  async releaseAll(instanceId: string): Promise<void> {
    await affected(this.dataSource, `DELETE FROM media_relay_owners WHERE instance_id = $1`, [instanceId]);
  }
}
