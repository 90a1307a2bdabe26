import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { returning } from '../common/database';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Mode } from '../common/scope';
import { generateApiKey, parseApiKey } from './api-key';
import { ApiKey, KeyRole } from './api-key.entity';
import { IssuedKey, KeyView, toIssuedKey, toKeyView } from './api-key.mapper';
import { KeyStore } from './key-store';

// Callers (partners, the CLI) type what they get back; the mapper itself stays this module's own.
export type { IssuedKey, KeyView } from './api-key.mapper';

@Injectable()
export class KeysService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: KeyStore,
  ) {}

  /** Creates a key inside the caller's transaction (registration, approval) or on its own. */
  async issue(em: EntityManager | null, partnerId: number, mode: Mode, role: KeyRole = 'partner', name: string | null = null): Promise<IssuedKey> {
    const generated = generateApiKey(mode);
    const row = (em ?? this.dataSource.manager).create(ApiKey, {
      id: newId('key'),
      partnerId,
      mode,
      role,
      name,
      keyPrefix: generated.prefix,
      keyHash: generated.hash,
      lastUsedAt: null,
      revokedAt: null,
    });
    const saved = await (em ?? this.dataSource.manager).save(row);
    return toIssuedKey(saved, generated.key);
  }

  /** The id of a key given as the key itself (stored only as its SHA-256); null for anything that is not a key of ours. */
  async idOf(rawKey: string): Promise<string | null> {
    const parsed = parseApiKey(rawKey);
    if (!parsed) return null;
    const row = await this.dataSource.getRepository(ApiKey).findOne({ where: { keyHash: parsed.hash }, select: { id: true } });
    return row?.id ?? null;
  }

  async revoke(keyId: string): Promise<KeyView> {
    if (!/^key_[0-9A-Za-z]{1,36}$/.test(keyId)) throw new DomainError('api_key_not_found');
    // id: varchar
    const rows = await returning<{ id: string }>(this.dataSource, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id`, [
      keyId,
    ]);
    if (!rows.length) throw new DomainError('api_key_not_found');
    await this.store.invalidate();
    const key = await this.dataSource.getRepository(ApiKey).findOneByOrFail({ id: keyId });
    return toKeyView(key);
  }

  list(partnerId: number): Promise<KeyView[]> {
    return this.dataSource
      .getRepository(ApiKey)
      .find({ where: { partnerId }, order: { createdAt: 'ASC' } })
      .then((keys) => keys.map(toKeyView));
  }
}
