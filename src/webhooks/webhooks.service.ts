import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { AuthContext } from '../auth/auth-context';
import { DomainError, validationFailed } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import { prefixedIdShape } from '../common/params';
import { Mode, Scope } from '../common/scope';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { PublicEventType } from '../events/event-map';
import { Tx, TransactionRunner } from '../events/transaction-runner';
import { CreateWebhookDto, ListWebhooksQuery, RotateSecretDto, UpdateWebhookDto } from './dto/webhook.dto';
import { SecretBox } from './secret-box';
import { ForbiddenTargetError, isAllowedWebhookPort, resolveSafely } from './ssrf-guard';
import { toWebhookView } from './webhook.mapper';
import { WebhookSubscription, WebhooksRepository } from './webhooks.repository';

/** What subscription changes need of the caller: a key (the API) or a dashboard session. */
export type WebhookCaller = Pick<AuthContext, 'scope' | 'mode' | 'plan'>;

const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;
// Routes that validate a body or query leave their path id to find(), so the body's 400 comes first.
const WEBHOOK_ID = prefixedIdShape('whk');

/** Webhook subscriptions of one partner and mode: validation, the plan's event-type limit, encrypted secrets. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly runner: TransactionRunner,
    private readonly secrets: SecretBox,
    private readonly repo: WebhooksRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(auth: WebhookCaller, dto: CreateWebhookDto) {
    await this.checkUrl(dto.url, auth.mode);
    const saved = await this.runner.run(async (tx) => {
      await this.lockScope(tx, auth.scope);
      await this.checkEventTypeLimit(tx, auth, dto.events);
      await this.checkSubscriptionLimit(tx, auth);
      return this.repo.insertSubscription(tx.em, auth.scope, {
        id: newId('whk'),
        url: dto.url,
        events: dto.events,
        secretEncrypted: this.secrets.seal(dto.secret),
        status: 'active',
        disabledReason: null,
      });
    });
    const { id, url, events, status, created_at } = toWebhookView(saved);
    return { id, url, events, status, created_at };
  }

  async list(scope: Scope, query: ListWebhooksQuery) {
    const [items, total] = await this.repo.pageSubscriptions(scope, offsetOf(query), query.limit);
    return pageOf('webhooks', items.map(toWebhookView), total, query);
  }

  async get(scope: Scope, id: string) {
    return toWebhookView(await this.find(scope, id));
  }

  async update(auth: WebhookCaller, id: string, dto: UpdateWebhookDto) {
    if (dto.url === undefined && dto.events === undefined && dto.secret === undefined && dto.status === undefined) {
      throw validationFailed([{ field: 'body', message: 'give at least one of url, events, secret, status' }]);
    }
    if (dto.url !== undefined) await this.checkUrl(dto.url, auth.mode);
    const saved = await this.runner.run(async (tx) => {
      await this.lockScope(tx, auth.scope);
      const sub = await this.find(auth.scope, id, tx.em);
      const status = dto.status ?? sub.status;
      const events = dto.events ?? sub.events;
      if (status === 'active') await this.checkEventTypeLimit(tx, auth, events, sub.id);
      if (dto.url !== undefined) sub.url = dto.url;
      if (dto.secret !== undefined) {
        // An immediate replacement: no overlap (rotate-secret is the way to change it without missing events).
        sub.secretEncrypted = this.secrets.seal(dto.secret);
        sub.secretPreviousEncrypted = null;
        sub.previousSecretExpiresAt = null;
      }
      if (dto.status !== undefined && dto.status !== sub.status) {
        sub.disabledReason = dto.status === 'disabled' ? 'Disabled by the partner.' : null;
        // Re-enabled: the auto-disable period starts again from the next failure.
        if (dto.status === 'active') sub.failingSince = null;
      }
      sub.events = events;
      sub.status = status;
      return this.repo.updateSubscription(tx.em, auth.scope, sub);
    });
    return toWebhookView(saved);
  }

  /**
   * Rotation with overlap: the new secret signs from now on; the current one becomes the previous secret and keeps
   * signing beside it until `previous_secret_expires_in` seconds from now (a previous secret of an earlier rotation
   * is dropped). Serialised per partner and mode, so two rotations at once cannot lose a secret.
   */
  async rotateSecret(scope: Scope, id: string, dto: RotateSecretDto) {
    const overlapSeconds = dto.previous_secret_expires_in ?? DEFAULT_PREVIOUS_SECRET_SECONDS;
    const saved = await this.runner.run(async (tx) => {
      await this.lockScope(tx, scope);
      const sub = await this.find(scope, id, tx.em);
      sub.secretPreviousEncrypted = overlapSeconds > 0 ? sub.secretEncrypted : null;
      sub.previousSecretExpiresAt = overlapSeconds > 0 ? new Date(Date.now() + overlapSeconds * 1000) : null;
      sub.secretEncrypted = this.secrets.seal(dto.secret);
      return this.repo.updateSubscription(tx.em, scope, sub);
    });
    return toWebhookView(saved);
  }

  /** Deletes the subscription with its delivery log; queued jobs find no delivery and end. */
  async remove(scope: Scope, id: string) {
    const sub = await this.find(scope, id);
    await this.repo.deleteSubscription(scope, sub.id);
    return { id: sub.id, deleted: true };
  }

  /** The scope's subscription, read through `em` when given (a transaction's); 404 webhook_not_found otherwise. */
  async find(scope: Scope, id: string, em?: EntityManager): Promise<WebhookSubscription> {
    const sub = WEBHOOK_ID.test(id) ? await this.repo.findSubscription(scope, id, em) : null;
    if (!sub) throw new DomainError('webhook_not_found');
    return sub;
  }

  /** Serialises subscription changes per partner and mode, so two parallel requests cannot both pass the plan limit. */
  private async lockScope(tx: Tx, scope: Scope): Promise<void> {
    await this.repo.lockSubscriptionsOf(tx.em, scope);
  }

  /** Every event fans out to each matching subscription, so their number is what bounds one call's outbound POSTs. */
  private async checkSubscriptionLimit(tx: Tx, auth: WebhookCaller): Promise<void> {
    const allowed = auth.plan.webhookSubscriptions;
    if (allowed === null) return;
    const subscriptions = await this.repo.countSubscriptions(tx.em, auth.scope);
    if (subscriptions >= allowed) {
      throw new DomainError(
        'plan_limit_exceeded',
        { limit: 'webhook_subscriptions', allowed, subscriptions, plan: auth.plan.code },
        `Your plan allows at most ${allowed} webhook subscriptions per mode; delete one you no longer use.`,
      );
    }
  }

  private async checkEventTypeLimit(tx: Tx, auth: WebhookCaller, events: PublicEventType[], exceptId?: string): Promise<void> {
    const limit = auth.plan.webhookEventTypes;
    if (limit === null) return;
    const types = new Set([...(await this.repo.activeEventTypes(tx.em, auth.scope, exceptId)), ...events]);
    if (types.size > limit) {
      throw new DomainError(
        'plan_limit_exceeded',
        { limit, event_types: [...types].sort(), plan: auth.plan.code },
        `Your plan allows at most ${limit} distinct webhook event types across active subscriptions.`,
      );
    }
  }

  /** A target we may call: absolute http(s) URL, https for live keys, an allowed port, and (unless allowed) not a private or reserved target. */
  private async checkUrl(raw: string, mode: Mode): Promise<void> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw validationFailed([{ field: 'url', message: 'url must be an absolute http or https URL' }]);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw validationFailed([{ field: 'url', message: 'url must use http or https' }]);
    if (mode === 'live' && url.protocol !== 'https:') throw validationFailed([{ field: 'url', message: 'url must use https for live keys' }]);
    if (url.username || url.password) throw validationFailed([{ field: 'url', message: 'url must not contain credentials' }]);
    if (!isAllowedWebhookPort(url)) {
      throw validationFailed([{ field: 'url', message: 'url port must be 80, 443, or 1024-65535 other than internal service ports (5432, 6379, …)' }]);
    }
    if (this.config.webhook.allowPrivateTargets) return;
    try {
      await resolveSafely(url.hostname);
    } catch (e) {
      // One answer for "private", "reserved" and "does not resolve": nothing about the network behind the name.
      if (e instanceof ForbiddenTargetError) throw validationFailed([{ field: 'url', message: 'url must name a host that resolves to public addresses only' }]);
      throw e;
    }
  }
}
