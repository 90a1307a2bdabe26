import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Mode } from '../common/scope';
import { generateApiKey, parseApiKey } from './api-key';
import { KeyRole } from './api-key.entity';
import { IssuedKey, KeyView, toIssuedKey, toKeyView } from './api-key.mapper';
import { ApiKeysRepository } from './api-keys.repository';
import { KeyStore } from './key-store';

// Callers (partners, the CLI) type what they get back; the mapper itself stays this module's own.
export type { IssuedKey, KeyView } from './api-key.mapper';

@Injectable()
export class KeysService {
  constructor(
    private readonly repo: ApiKeysRepository,
    private readonly store: KeyStore,
  ) {}

  /** Creates a key inside the caller's transaction (registration, approval) or on its own. */
  async issue(em: EntityManager | null, partnerId: number, mode: Mode, role: KeyRole = 'partner', name: string | null = null): Promise<IssuedKey> {
    const generated = generateApiKey(mode);
    const saved = await this.repo.insert(em, { id: newId('key'), partnerId, mode, role, name, keyPrefix: generated.prefix, keyHash: generated.hash });
    return toIssuedKey(saved, generated.key);
  }

  /** The id of a key given as the key itself (stored only as its SHA-256); null for anything that is not a key of ours. */
  async idOf(rawKey: string): Promise<string | null> {
    const parsed = parseApiKey(rawKey);
    if (!parsed) return null;
    return this.repo.idByHash(parsed.hash);
  }

  /** Revokes a key of one of `modes` (a test-mode admin key reaches test keys only); others are not found. */
  async revoke(keyId: string, modes: Mode[] = ['test', 'live']): Promise<KeyView> {
    if (!/^key_[0-9A-Za-z]{1,36}$/.test(keyId)) throw new DomainError('api_key_not_found');
    const key = await this.repo.revoke(keyId, modes);
    if (!key) throw new DomainError('api_key_not_found');
    await this.store.invalidate();
    return toKeyView(key);
  }

  async list(partnerId: number): Promise<KeyView[]> {
    return (await this.repo.listForPartner(partnerId)).map(toKeyView);
  }
}
