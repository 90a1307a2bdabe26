import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

/**
 * Transactional outbox: written in the business transaction, dispatched to webhooks after commit or by the relay.
 * Which events are not dispatched yet is the `events_undispatched` table's (OutboxStore).
 */
@Entity('events')
export class OutboxEvent extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  type: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
