import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('topics')
export class Topic {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'course_id', type: 'int' })
  courseId: number;

  @Column({ type: 'int' })
  position: number;

  @Column({ type: 'varchar', length: 300 })
  title: string;

  @Column({ name: 'duration_minutes', type: 'int' })
  durationMinutes: number;

  @Column({ name: 'has_quiz', type: 'boolean', default: false })
  hasQuiz: boolean;

  /** Free to watch before enrolling; listed in the course detail's preview.topic_ids. */
  @Column({ name: 'is_preview', type: 'boolean', default: false })
  isPreview: boolean;
}
