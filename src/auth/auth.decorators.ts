import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { DomainError } from '../common/errors';
import type { PlanFeatureName } from '../plans/plan';

export const ADMIN_ONLY = 'auth:admin_only';
export const LIVE_ADMIN_ONLY = 'auth:live_admin_only';
export const PLAN_FEATURE = 'auth:plan_feature';

/** Only admin keys (platform operators) may call this route; others get 403 admin_only. */
export const AdminOnly = () => applyDecorators(SetMetadata(ADMIN_ONLY, true), ApiExtension('x-admin-only', true));

/**
 * An admin route that reaches beyond test data (live keys, a partner's account, the shared catalogue): a test-mode
 * admin key gets 403 admin_only.
 */
export const LiveAdminOnly = () => applyDecorators(SetMetadata(LIVE_ADMIN_ONLY, true), ApiExtension('x-live-admin-only', true));

/** What a test-mode admin key gets when it reaches for live data or for what live data depends on. */
export function liveAdminRequired(): DomainError {
  return new DomainError('admin_only', { key_mode: 'test' }, 'This operation needs a live-mode admin key: a test-mode admin key acts on test data only.');
}

/** The endpoint group a route belongs to; the caller's plan must include it (401 endpoint_not_in_plan). */
export const PlanFeature = (feature: PlanFeatureName) => applyDecorators(SetMetadata(PLAN_FEATURE, feature), ApiExtension('x-plan-feature', feature));
