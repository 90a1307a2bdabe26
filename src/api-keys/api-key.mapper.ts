import type { Mode } from '../common/scope';
import type { KeyRole } from './api-key.entity';
import type { ApiKey } from './api-keys.repository';

/** A key as shown once, in the response that issued it (registration, approval, admin issue): never retrievable again. */
export interface IssuedKey {
  id: string;
  key: string;
  mode: Mode;
  key_prefix: string;
  created_at: string;
}

/** A stored key as listed or revoked: its prefix, never the key. */
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

export function toIssuedKey(k: ApiKey, key: string): IssuedKey {
  return { id: k.id, key, mode: k.mode, key_prefix: k.keyPrefix, created_at: k.createdAt.toISOString() };
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
