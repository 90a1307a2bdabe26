import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

/** `skipped`: the event matched while the subscription was disabled; nothing was sent (`recover` sends it). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One event for one subscription (unique per pair). `id` is the envelope's webhook_id; `body` holds the exact bytes signed and sent. */
@Entity('webhook_deliveries')
export class WebhookDelivery extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'subscription_id', type: 'varchar', length: 40 })
  subscriptionId: string;

  @Column({ name: 'event_id', type: 'varchar', length: 40 })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 40 })
  eventType: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 10 })
  status: DeliveryStatus;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;
}
