import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';
import type { PublicEventType } from '../events/event-map';

export type SubscriptionStatus = 'active' | 'disabled';

/** A partner endpoint that receives the event types it lists. The signing secret is stored encrypted (SecretBox). */
@Entity('webhook_subscriptions')
export class WebhookSubscription extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'text', array: true })
  events: PublicEventType[];

  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted: string;

  @Column({ type: 'varchar', length: 10 })
  status: SubscriptionStatus;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
