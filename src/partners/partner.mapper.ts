import type { KeyView } from '../api-keys/keys.service';
import type { PlanTerms } from '../plans/plan';
import type { Partner, ProductionAccessRequest } from './partners.repository';

export function toPartnerView(p: Partner) {
  return { id: p.id, name: p.name, email: p.email, plan: p.planCode, status: p.status };
}

export function toPlanView(plan: PlanTerms) {
  return {
    code: plan.code,
    name: plan.name,
    monthly_quota: plan.monthlyQuota,
    rate_limit_per_second: plan.rateLimitPerSecond,
    webhook_event_types: plan.webhookEventTypes,
    webhook_subscriptions: plan.webhookSubscriptions,
    bulk_outstanding_rows: plan.bulkOutstandingRows,
    webinar_rooms: plan.webinarRooms,
    features: plan.features,
  };
}

export function toAdminPartnerView(p: Partner, keys: KeyView[]) {
  return { ...toPartnerView(p), website: p.website, allowed_origins: p.allowedOrigins, created_at: p.createdAt.toISOString(), keys };
}

export function toAccessRequestView(r: ProductionAccessRequest) {
  return { id: r.id, status: r.status, created_at: r.createdAt.toISOString() };
}

export function toAdminAccessRequestView(r: ProductionAccessRequest, partnerName: string) {
  return {
    ...toAccessRequestView(r),
    partner_id: r.partnerId,
    partner_name: partnerName,
    use_case: r.useCase,
    reason: r.reason,
    reviewed_at: r.reviewedAt?.toISOString() ?? null,
  };
}
