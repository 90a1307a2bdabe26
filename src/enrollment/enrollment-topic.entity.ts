import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A topic an enrolment has completed; a has_quiz topic's quiz is passed once quiz_passed_at is set. */
@Entity('enrollment_topics')
export class EnrollmentTopic {
  @PrimaryColumn({ name: 'enrollment_id', type: 'int' })
  enrollmentId: number;

  @PrimaryColumn({ name: 'topic_id', type: 'int' })
  topicId: number;

  @Column({ name: 'completed_at', type: 'timestamptz' })
  completedAt: Date;

  @Column({ name: 'quiz_passed_at', type: 'timestamptz', nullable: true })
  quizPassedAt: Date | null;
}
