import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One HTTP attempt of a delivery, kept for support and for the partner's delivery log. */
@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'delivery_id', type: 'varchar', length: 40 })
  deliveryId: string;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt: Date;

  @Column({ name: 'status_code', type: 'int', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  /** What the attempt was sent with; null for attempts recorded before headers were kept. */
  @Column({ name: 'request_headers', type: 'jsonb', nullable: true })
  requestHeaders: Record<string, string> | null;
}
