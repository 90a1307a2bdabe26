import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { PlanFeatureName } from '../plans/plan';

export const ADMIN_ONLY = 'auth:admin_only';
export const PLAN_FEATURE = 'auth:plan_feature';

/** Only admin keys (platform operators) may call this route; others get 403 admin_only. */
export const AdminOnly = () => applyDecorators(SetMetadata(ADMIN_ONLY, true), ApiExtension('x-admin-only', true));

/** The endpoint group a route belongs to; the caller's plan must include it (401 endpoint_not_in_plan). */
export const PlanFeature = (feature: PlanFeatureName) => applyDecorators(SetMetadata(PLAN_FEATURE, feature), ApiExtension('x-plan-feature', feature));
