import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

/** One certificate per enrolment; holder name and course title are frozen at issue. */
@Entity('certificates')
export class Certificate extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'course_id', type: 'int' })
  courseId: number;

  @Column({ name: 'enrollment_id', type: 'int' })
  enrollmentId: number;

  @Column({ name: 'holder_name', type: 'varchar', length: 200 })
  holderName: string;

  @Column({ name: 'course_title', type: 'varchar', length: 300 })
  courseTitle: string;

  /** A calendar date (UTC), kept as the `YYYY-MM-DD` string PostgreSQL returns. */
  @Column({ name: 'issued_at', type: 'date' })
  issuedAt: string;

  @Column({ name: 'override_quiz', type: 'boolean', default: false })
  overrideQuiz: boolean;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
