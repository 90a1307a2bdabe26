import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Endpoint groups a plan can include; every keyed controller declares its group with @PlanFeature(). */
export const PLAN_FEATURES = ['catalogue', 'account', 'webhooks', 'users', 'enrollment', 'credits', 'certificates', 'webinars', 'search'] as const;
export type PlanFeatureName = (typeof PLAN_FEATURES)[number];

export const PLAN_CODES = ['starter', 'growth', 'enterprise'] as const;
export type PlanCode = (typeof PLAN_CODES)[number];

/** Plans are rows (seeded by a migration); enforcement reads them, nothing is hard-coded in guards. */
@Entity('plans')
export class Plan {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  code: PlanCode;

  @Column({ type: 'varchar', length: 60 })
  name: string;

  /** Calls per calendar month (UTC) per partner and mode; null = unlimited. */
  @Column({ name: 'monthly_quota', type: 'int', nullable: true })
  monthlyQuota: number | null;

  @Column({ name: 'rate_limit_per_second', type: 'int' })
  rateLimitPerSecond: number;

  /** Distinct webhook event types across a partner's subscriptions per mode; null = all. */
  @Column({ name: 'webhook_event_types', type: 'int', nullable: true })
  webhookEventTypes: number | null;

  /** Webinars not yet ended at once; null = unlimited. */
  @Column({ name: 'webinar_rooms', type: 'int', nullable: true })
  webinarRooms: number | null;

  @Column({ type: 'text', array: true })
  features: PlanFeatureName[];
}
