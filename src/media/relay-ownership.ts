import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { OnEvent } from '@nestjs/event-emitter';
import type { Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../common/errors';
import { errorMessage } from '../common/error-message';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DomainEvent, EVENTS_COMMITTED } from '../events/event-map';
import { AttendanceService } from '../webinars/attendance.service';
import { MediaRelay } from './media-relay.service';
import { FORWARDED_HEADER, forwardToOwner, OwnerUnreachable, sendForwarded } from './relay-forwarder';
import { RelayOwner, RelayOwnersRepository } from './relay-owners.repository';

/** How often the owner renews its leases, and how long a lease outlives its last renewal. */
export const LEASE_RENEW_MS = 1000;
export const LEASE_TTL_MS = 4000;
/**
 * How long the owner has to answer a forwarded request: a WHIP answer waits for ICE gathering (3 s at most), and
 * by then an owner that stopped renewing has lost its lease. Within the request's own deadline (REQUEST_TIMEOUT_MS).
 */
const FORWARD_TIMEOUT_MS = 5000;
const FORWARD_MARGIN_MS = 500;

export interface Route {
  /** The client has its answer: the owner gave it. */
  forwarded: boolean;
  /** The recorded owner whose address refused the connection: its lease may be taken before it expires. */
  deadOwner: string | null;
}

const unavailable = () =>
  new DomainError('service_unavailable', undefined, 'The webinar’s media relay cannot be reached right now. Retry shortly.', { 'Retry-After': '1' });

/**
 * One instance owns each live webinar's relay at a time, under a lease in PostgreSQL that it renews every second.
 * Signalling that reaches another instance is forwarded to the owner's internal address, so every session of a
 * webinar lands in the same room and the answer carries the owner's ICE candidates. When the owner dies its lease
 * expires (or its address refuses at once), and the next WHIP or WHEP takes the webinar over wherever it lands.
 * An owner that finds its lease gone (taken after a stall, or released when the webinar ended elsewhere) closes
 * the room, so its clients reconnect to the new owner.
 */
@Injectable()
export class RelayOwnership implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RelayOwnership.name);
  /** 96 random bits: a restarted process is a new owner, whatever its address. */
  readonly instanceId = randomBytes(12).toString('base64url');
  /** Webinars whose lease this instance holds, each with the number of its last claim. */
  private readonly held = new Map<string, number>();
  private claims = 0;
  private timer: NodeJS.Timeout | null = null;
  private renewing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly owners: RelayOwnersRepository,
    private readonly relay: MediaRelay,
    private readonly attendance: AttendanceService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.renew(), LEASE_RENEW_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.held.size === 0) return;
    this.held.clear();
    // The next WHIP or WHEP anywhere takes these webinars over at once instead of waiting for the leases to expire.
    await this.owners.releaseAll(this.instanceId).catch((e) => this.logger.warn(`releasing relay leases failed: ${errorMessage(e)}`));
  }

  /**
   * Where the other instances reach this one: MEDIA_INTERNAL_URL, else the address and port the server is bound to
   * (loopback when bound to every interface), which serves instances on one machine.
   */
  get internalUrl(): string {
    if (this.config.media.internalUrl) return this.config.media.internalUrl;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as { address?: () => AddressInfo | string | null } | undefined;
    const bound = server?.address?.();
    if (!bound || typeof bound !== 'object') return `http://127.0.0.1:${this.config.port}`;
    const host = ['0.0.0.0', '::'].includes(bound.address) ? '127.0.0.1' : bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    return `http://${host}:${bound.port}`;
  }

  /**
   * Forwards the request to the webinar's owner when that is another instance with a live lease. Not forwarded:
   * this instance serves it (no owner, an expired lease, this instance's own, or a request already forwarded once).
   */
  async forwardIfElsewhere(webinarId: string, req: Request, res: Response): Promise<Route> {
    // The owner serves its own webinars without asking: a lease it lost is noticed by the next renewal.
    if (req.headers[FORWARDED_HEADER] !== undefined || this.held.has(webinarId)) return { forwarded: false, deadOwner: null };
    const owner = await this.owners.owner(webinarId);
    if (!owner || !owner.live || owner.instanceId === this.instanceId) return { forwarded: false, deadOwner: null };
    return this.forward(webinarId, owner, req, res);
  }

  /**
   * Before a session opens here: takes the webinar's lease. When another live instance holds it (it claimed in
   * between), the request goes there instead and true is answered.
   */
  async takeOrForward(webinarId: string, req: Request, res: Response, deadOwner: string | null): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.owners.claim(webinarId, this.instanceId, this.internalUrl, LEASE_TTL_MS, deadOwner);
      if (claimed) {
        this.held.set(webinarId, ++this.claims);
        if (claimed.previousInstance) await this.takenOver(webinarId, claimed.previousInstance, claimed.previousRenewedAt ?? new Date());
        return false;
      }
      const owner = await this.owners.owner(webinarId);
      if (!owner || owner.instanceId === this.instanceId || !owner.live) continue;
      if (req.headers[FORWARDED_HEADER] !== undefined) throw unavailable();
      const route = await this.forward(webinarId, owner, req, res);
      if (route.forwarded) return true;
      deadOwner = route.deadOwner;
    }
    throw unavailable();
  }

  @OnEvent(EVENTS_COMMITTED)
  async onCommitted(events: DomainEvent[]): Promise<void> {
    for (const e of events) {
      if (e.type !== 'webinar.ended') continue;
      const webinarId = (e as DomainEvent<'webinar.ended'>).payload.webinar_id;
      this.held.delete(webinarId);
      // Wherever the end was committed, the owner's next renewal finds the lease gone and closes its room.
      await this.owners.release(webinarId).catch((err) => this.logger.warn(`releasing the relay lease of ${webinarId} failed: ${errorMessage(err)}`));
    }
  }

  /**
   * Passes the request to the owner. Its address refusing means it is gone; no answer in time means it is stalled
   * or cut off, and if its lease has run out meanwhile this instance serves the request (taking the webinar over).
   */
  private async forward(webinarId: string, owner: RelayOwner, req: Request, res: Response): Promise<Route> {
    const timeoutMs = Math.max(500, Math.min(FORWARD_TIMEOUT_MS, this.config.requestTimeoutMs - FORWARD_MARGIN_MS));
    try {
      sendForwarded(res, await forwardToOwner(owner.internalUrl, req, this.instanceId, timeoutMs));
      return { forwarded: true, deadOwner: null };
    } catch (e) {
      if (!(e instanceof OwnerUnreachable)) throw e;
      this.logger.warn(`forwarding signalling to the relay owner ${owner.instanceId} failed: ${e.message}`);
      if (e.refused) return { forwarded: false, deadOwner: owner.instanceId };
      const now = await this.owners.owner(webinarId);
      if (now?.live && now.instanceId === owner.instanceId) throw unavailable();
      return { forwarded: false, deadOwner: null };
    }
  }

  /** The previous owner died with viewers' sessions open: they end when it was last known alive. */
  private async takenOver(webinarId: string, previousInstance: string, lastAlive: Date): Promise<void> {
    this.logger.warn(`took over the relay of ${webinarId} from instance ${previousInstance}`);
    try {
      await this.attendance.sessionsOrphaned(webinarId, lastAlive);
    } catch (e) {
      this.logger.error(`closing the orphaned media sessions of ${webinarId} failed: ${errorMessage(e)}`);
    }
  }

  /** The heartbeat: renews every held lease; a lease found gone closes its room here. */
  private async renew(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    const before = new Map(this.held);
    try {
      const still = new Set(await this.owners.renew(this.instanceId, LEASE_TTL_MS));
      for (const [webinarId, claimedAt] of before) {
        // A claim made while the renewal ran is newer than what the renewal saw.
        if (still.has(webinarId) || this.held.get(webinarId) !== claimedAt) continue;
        this.held.delete(webinarId);
        this.logger.warn(`lost the relay lease of ${webinarId}: closing its sessions here`);
        await this.relay.endWebinar(webinarId);
      }
    } catch (e) {
      this.logger.warn(`renewing relay leases failed: ${errorMessage(e)}`);
    } finally {
      this.renewing = false;
    }
  }
}
