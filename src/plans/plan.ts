/** Endpoint groups a plan can include; every keyed controller declares its group with @PlanFeature(). */
export const PLAN_FEATURES = ['catalogue', 'account', 'webhooks', 'users', 'enrollment', 'credits', 'certificates', 'webinars', 'search'] as const;
export type PlanFeatureName = (typeof PLAN_FEATURES)[number];

export const PLAN_CODES = ['starter', 'growth', 'enterprise'] as const;
export type PlanCode = (typeof PLAN_CODES)[number];

/**
 * What a plan allows, as enforcement reads it. Other modules depend on this shape, never on the entity, so the
 * plans table stays this module's own.
 */
export interface PlanTerms {
  code: PlanCode;
  name: string;
  /** Calls per calendar month (UTC) per partner and mode; null = unlimited. */
  monthlyQuota: number | null;
  rateLimitPerSecond: number;
  /** Distinct webhook event types across a partner's subscriptions per mode; null = all. */
  webhookEventTypes: number | null;
  /** Webhook subscriptions per partner and mode (every event fans out to each); null = unlimited. */
  webhookSubscriptions: number | null;
  /** Bulk enrolment rows accepted and not yet processed, per partner across both modes; null = unlimited. */
  bulkOutstandingRows: number | null;
  /** Webinars not yet ended at once; null = unlimited. */
  webinarRooms: number | null;
  features: PlanFeatureName[];
}
