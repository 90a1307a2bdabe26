import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

export type EnrollmentStatus = 'active' | 'completed';

/** A user's place in a course; UNIQUE (user_id, course_id) makes double enrolment impossible. */
@Entity('enrollments')
export class Enrollment extends PartnerOwned {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'course_id', type: 'int' })
  courseId: number;

  @Column({ type: 'varchar', length: 10 })
  status: EnrollmentStatus;

  @Column({ name: 'credits_deducted', type: 'int' })
  creditsDeducted: number;

  @Column({ name: 'enrolled_at', type: 'timestamptz' })
  enrolledAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** What the certificates module answered when completion was raised (null until then). */
  @Column({ name: 'certificate_id', type: 'varchar', length: 40, nullable: true })
  certificateId: string | null;
}
