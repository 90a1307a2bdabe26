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

  /** The secret before the last rotation, still signing until previousSecretExpiresAt. */
  @Column({ name: 'secret_previous_encrypted', type: 'text', nullable: true })
  secretPreviousEncrypted: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column({ type: 'varchar', length: 10 })
  status: SubscriptionStatus;

  /** The first failed attempt since the last success (null while healthy); drives auto-disable. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
