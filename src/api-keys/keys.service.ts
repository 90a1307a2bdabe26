import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Mode, Scope } from '../common/scope';
import type { PlanTerms } from '../plans/plan';
import { generateApiKey, parseApiKey } from './api-key';
import { KeyRole } from './api-key.entity';
import { IssuedKey, KeyView, toIssuedKey, toKeyView } from './api-key.mapper';
import { ApiKeysRepository, PartnerStatus, planTermsOf } from './api-keys.repository';
import { KeyRecord, KeyStore } from './key-store';

/** A partner and its plan, for a caller that holds no key (the dashboard's session). */
export interface PartnerAccount {
  partnerId: number;
  partnerName: string;
  partnerStatus: PartnerStatus;
  allowedOrigins: string[];
  plan: PlanTerms;
}

// Callers (partners, the CLI, the guard) type what they get back; the mapper and the store stay this module's own.
export type { IssuedKey, KeyView } from './api-key.mapper';
export type { KeyRecord } from './key-store';

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

  /** The partner keys of one partner and mode, newest first. */
  async listOf(scope: Scope): Promise<KeyView[]> {
    return (await this.repo.listForScope(scope)).map(toKeyView);
  }

  /** Revokes one of the scope's partner keys (effective on every instance at once); 404 for anyone else's. */
  async revokeOf(scope: Scope, keyId: string): Promise<KeyView> {
    const key = /^key_[0-9A-Za-z]{1,36}$/.test(keyId) ? await this.repo.revokeScoped(scope, keyId) : null;
    if (!key) throw new DomainError('api_key_not_found');
    await this.store.invalidate();
    return toKeyView(key);
  }

  /** The key whose SHA-256 this is, with its partner and plan, from the in-process cache when it holds it; null when none. */
  find(hash: string): Promise<KeyRecord | null> {
    return this.store.find(hash);
  }

  /** The same from the in-process cache alone, without waiting; undefined when find() must be asked. */
  cached(hash: string): KeyRecord | undefined {
    return this.store.cached(hash);
  }

  /** Records that a key was used (at most once a minute, never awaited). */
  touch(keyId: string): void {
    this.store.touch(keyId);
  }

  /** Call after a partner or plan change commits: every instance forgets the keys it resolved. */
  invalidate(): Promise<void> {
    return this.store.invalidate();
  }

  /** The partner with its plan terms; null when there is no such partner. */
  async accountOf(partnerId: number): Promise<PartnerAccount | null> {
    const r = await this.repo.account(partnerId);
    if (!r) return null;
    return {
      partnerId: r.partner_id,
      partnerName: r.name,
      partnerStatus: r.status,
      allowedOrigins: r.allowed_origins,
      plan: planTermsOf(r),
    };
  }

  async list(partnerId: number): Promise<KeyView[]> {
    return (await this.repo.listForPartner(partnerId)).map(toKeyView);
  }
}
