import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PlanCode, PlanFeatureName, PlanTerms } from './plan';

/** Plans are rows (seeded by a migration); enforcement reads them, nothing is hard-coded in guards. */
@Entity('plans')
export class Plan implements PlanTerms {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  code: PlanCode;

  @Column({ type: 'varchar', length: 60 })
  name: string;

  @Column({ name: 'monthly_quota', type: 'int', nullable: true })
  monthlyQuota: number | null;

  @Column({ name: 'rate_limit_per_second', type: 'int' })
  rateLimitPerSecond: number;

  @Column({ name: 'webhook_event_types', type: 'int', nullable: true })
  webhookEventTypes: number | null;

  @Column({ name: 'webhook_subscriptions', type: 'int', nullable: true })
  webhookSubscriptions: number | null;

  @Column({ name: 'bulk_outstanding_rows', type: 'int', nullable: true })
  bulkOutstandingRows: number | null;

  @Column({ name: 'webinar_rooms', type: 'int', nullable: true })
  webinarRooms: number | null;

  @Column({ type: 'text', array: true })
  features: PlanFeatureName[];
}
