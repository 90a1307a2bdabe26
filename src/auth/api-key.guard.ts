import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { DomainError } from '../common/errors';
import type { Mode } from '../common/scope';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { API_KEY_LENGTH, hashApiKey, parseApiKey } from '../api-keys/api-key';
import { KeyRecord, KeysService } from '../api-keys/keys.service';
import type { PlanFeatureName } from '../plans/plan';
import { AuthContext, AuthedRequest } from './auth-context';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { ADMIN_ONLY, LIVE_ADMIN_ONLY, liveAdminRequired, PLAN_FEATURE } from './auth.decorators';
import { IS_PUBLIC } from './public.decorator';
import { UsageLimiter, UsageOutcome } from './usage-limiter';
import { MAX_INT_ID } from '../common/params';

/** What the guard reads from a route's decorators (@Public, @AdminOnly, @LiveAdminOnly, @PlanFeature). */
interface RouteAuth {
  isPublic: boolean;
  adminOnly: boolean;
  liveAdminOnly: boolean;
  feature: PlanFeatureName | undefined;
}

/**
 * The one API-key guard, driven by route metadata (@Public, @AdminOnly, @PlanFeature). In order:
 * key present and well-formed → known (failures limited per client address) → not revoked → partner active → Origin allowlist →
 * admin-only → plan includes the endpoint → rate limit → monthly quota.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly publicOrigin: string;
  // Bench-only switch (bench/catalogue.js compares catalogue reads with and without this guard); never set in production.
  private readonly benchSkipCatalogue: boolean;
  private readonly routes = new WeakMap<object, Map<object, RouteAuth>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeysService,
    private readonly limiter: UsageLimiter,
    private readonly failures: AuthFailureLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicOrigin = new URL(config.publicBaseUrl).origin;
    this.benchSkipCatalogue = config.benchDisableAuth;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routeOf(context);
    if (route.isPublic) return true;
    if (this.benchSkipCatalogue && route.feature === 'catalogue') return true;

    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const raw = req.headers['x-api-key'];
    if (raw === undefined || raw === '') throw new DomainError('missing_api_key');
    const key = Array.isArray(raw) ? undefined : raw;
    // A key in use is found in the cache by its hash alone: only that very key hashes to it, so its shape and checksum
    // need no second look (and the lookup no promise).
    let record = key?.length === API_KEY_LENGTH ? this.keys.cached(hashApiKey(key)) : undefined;
    if (!record) {
      const parsed = parseApiKey(key);
      if (!parsed) throw await this.failures.refusal(req.ip);
      const found = await this.keys.find(parsed.hash);
      if (!found) throw await this.failures.refusal(req.ip);
      record = found;
    }
    if (record.revoked) throw new DomainError('revoked_api_key');
    if (record.partnerStatus !== 'active') throw new DomainError('account_suspended');

    const origin = req.headers.origin;
    if (origin && origin !== this.publicOrigin && !record.allowedOrigins.includes(origin)) {
      throw new DomainError('origin_not_allowed', { origin });
    }

    if (record.role === 'admin') {
      if (record.mode !== 'live' && route.liveAdminOnly) throw liveAdminRequired();
      req.auth = await this.adminContext(record, req);
      this.keys.touch(record.keyId);
      return true;
    }
    if (route.adminOnly) throw new DomainError('admin_only');

    const feature = route.feature;
    if (!feature) throw new Error(`Route ${req.method} ${req.path} declares no @PlanFeature()`);
    if (!record.plan.features.includes(feature)) throw new DomainError('endpoint_not_in_plan', { plan: record.plan.code, endpoint_group: feature });

    // Set before the rate limit and quota, so a call they refuse is still known to be this partner's (the request log).
    req.auth = this.contextOf(record, { partnerId: record.partnerId, mode: record.mode });
    const usage = await this.limiter.consume(record.keyId, record.partnerId, record.mode, record.plan.rateLimitPerSecond, record.plan.monthlyQuota);
    this.setUsageHeaders(res, usage);
    if (usage.kind === 'rate_limited') {
      throw new DomainError('rate_limited', { limit_per_second: usage.rate.limit }, undefined, { 'Retry-After': String(usage.rate.resetSeconds) });
    }
    if (usage.kind === 'quota_exceeded') {
      throw new DomainError('monthly_quota_exceeded', { limit: usage.quota.limit, reset_at: new Date(usage.quota.reset * 1000).toISOString() });
    }
    this.keys.touch(record.keyId);
    return true;
  }

  /** The route's auth metadata, read once per controller method instead of four reflections per request. */
  private routeOf(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    const controller = context.getClass();
    let routes = this.routes.get(controller);
    if (!routes) this.routes.set(controller, (routes = new Map<object, RouteAuth>()));
    let route = routes.get(handler);
    if (!route) {
      const targets = [handler, controller];
      route = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
        adminOnly: this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) ?? false,
        liveAdminOnly: this.reflector.getAllAndOverride<boolean>(LIVE_ADMIN_ONLY, targets) ?? false,
        feature: this.reflector.getAllAndOverride<PlanFeatureName | undefined>(PLAN_FEATURE, targets),
      };
      routes.set(handler, route);
    }
    return route;
  }

  /** The record without `revoked` (a request only ever sees a live key), with the scope it acts in. */
  private contextOf(record: KeyRecord, scope: { partnerId: number; mode: Mode }): AuthContext {
    const { keyId, partnerId, partnerName, partnerStatus, allowedOrigins, mode, role, plan } = record;
    return { keyId, partnerId, partnerName, partnerStatus, allowedOrigins, mode, role, plan, scope };
  }

  /**
   * Admin keys act for the operators' own account, or for a partner named by X-Partner-Id (and X-Partner-Mode). A
   * test-mode admin key acts on test data only.
   */
  private async adminContext(record: KeyRecord, req: AuthedRequest): Promise<AuthContext> {
    const partnerHeader = req.headers['x-partner-id'];
    const modeHeader = req.headers['x-partner-mode'];
    if (partnerHeader === undefined) return this.contextOf(record, { partnerId: record.partnerId, mode: record.mode });
    if (typeof partnerHeader !== 'string' || !/^[1-9]\d{0,9}$/.test(partnerHeader) || Number(partnerHeader) > MAX_INT_ID) {
      throw new DomainError('validation_failed', [{ field: 'X-Partner-Id', message: 'X-Partner-Id must be a partner id' }]);
    }
    if (modeHeader !== undefined && modeHeader !== 'test' && modeHeader !== 'live') {
      throw new DomainError('validation_failed', [{ field: 'X-Partner-Mode', message: 'X-Partner-Mode must be test or live' }]);
    }
    if (modeHeader === 'live' && record.mode !== 'live') throw liveAdminRequired();
    if (!(await this.keys.accountOf(Number(partnerHeader)))) throw new DomainError('partner_not_found');
    return this.contextOf(record, { partnerId: Number(partnerHeader), mode: modeHeader ?? record.mode });
  }

  private setUsageHeaders(res: Response, usage: UsageOutcome): void {
    const { limit, remaining, resetSeconds } = usage.rate;
    res.setHeader('RateLimit-Policy', `"per-key";q=${limit};w=1`);
    res.setHeader('RateLimit', `"per-key";r=${remaining};t=${resetSeconds}`);
    if (usage.kind !== 'rate_limited' && usage.quota) {
      res.setHeader('X-Quota-Limit', String(usage.quota.limit));
      res.setHeader('X-Quota-Remaining', String(usage.quota.remaining));
      res.setHeader('X-Quota-Reset', String(usage.quota.reset));
    }
  }
}
