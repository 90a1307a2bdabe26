import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

export const WEBINAR_STATUSES = ['scheduled', 'live', 'ended'] as const;
export type WebinarStatus = (typeof WEBINAR_STATUSES)[number];

/** A live session of one partner in one mode: scheduled → live → ended (transitions are conditional UPDATEs). */
@Entity('webinars')
export class Webinar extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ name: 'host_user_id', type: 'int' })
  hostUserId: number;

  @Column({ name: 'scheduled_at', type: 'timestamptz' })
  scheduledAt: Date;

  @Column({ name: 'duration_minutes', type: 'int' })
  durationMinutes: number;

  @Column({ name: 'max_attendees', type: 'int', nullable: true })
  maxAttendees: number | null;

  /** Attendees holding a seat (registered or joined). */
  @Column({ name: 'seats_taken', type: 'int', default: 0 })
  seatsTaken: number;

  @Column({ name: 'is_public', type: 'boolean' })
  isPublic: boolean;

  @Column({ type: 'varchar', length: 10 })
  status: WebinarStatus;

  @Column({ name: 'host_token_hash', type: 'char', length: 64, select: false })
  hostTokenHash: string;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
