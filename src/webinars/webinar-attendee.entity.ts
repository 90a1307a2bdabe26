import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

export type AttendeeStatus = 'registered' | 'joined';

/** One user's seat in one webinar (unique per webinar and user). */
@Entity('webinar_attendees')
export class WebinarAttendee extends PartnerOwned {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'webinar_id', type: 'varchar', length: 40 })
  webinarId: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 10 })
  status: AttendeeStatus;

  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt: Date;

  /** First time the attendee joined the live session. */
  @Column({ name: 'joined_at', type: 'timestamptz', nullable: true })
  joinedAt: Date | null;

  /** SHA-256 of the personal link's token; null for a seat whose old, derivable link was voided. */
  @Column({ name: 'attendee_token_hash', type: 'char', length: 64, nullable: true, select: false })
  attendeeTokenHash: string | null;

  /** The token itself, sealed (see WebinarTokens), so registering again returns the same link. */
  @Column({ name: 'attendee_token_sealed', type: 'text', nullable: true, select: false })
  attendeeTokenSealed: string | null;
}
