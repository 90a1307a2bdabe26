import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { returning } from '../common/database';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Mode } from '../common/scope';
import { generateApiKey } from './api-key';
import { ApiKey, KeyRole } from './api-key.entity';
import { KeyStore } from './key-store';

/** A key as shown once at creation: the raw key is never retrievable again. */
export interface IssuedKey {
  id: string;
  key: string;
  mode: Mode;
  role: KeyRole;
  key_prefix: string;
  created_at: string;
}

export interface KeyView {
  id: string;
  mode: Mode;
  role: KeyRole;
  name: string | null;
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function toKeyView(k: ApiKey): KeyView {
  return {
    id: k.id,
    mode: k.mode,
    role: k.role,
    name: k.name,
    key_prefix: k.keyPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

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
    return { id: saved.id, key: generated.key, mode, role, key_prefix: saved.keyPrefix, created_at: saved.createdAt.toISOString() };
  }

  async revoke(keyId: string): Promise<KeyView> {
    if (!/^key_[0-9A-Za-z]{1,36}$/.test(keyId)) throw new DomainError('api_key_not_found');
    // id: varchar
    const rows = await returning<{ id: string }>(this.dataSource, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id`, [keyId]);
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
