import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Level } from './course-level';

export { LEVELS, type Level } from './course-level';

@Entity('courses')
export class Course {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 300 })
  title: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'varchar', length: 100 })
  category: string;

  @Column({ type: 'varchar', length: 20 })
  level: Level;

  @Column({ name: 'duration_minutes', type: 'int' })
  durationMinutes: number;

  @Column({
    type: 'numeric',
    precision: 2,
    scale: 1,
    default: 0,
    transformer: { to: (v: number) => v, from: (v: string | null) => (v === null ? 0 : Number(v)) },
  })
  rating: number;

  @Column({ type: 'int', default: 0 })
  enrolled: number;

  @Column({ name: 'credit_cost', type: 'int', default: 0 })
  creditCost: number;

  @Column({ name: 'thumbnail_url', type: 'varchar', length: 2048, nullable: true })
  thumbnailUrl: string | null;

  @Column({ name: 'preview_video_url', type: 'varchar', length: 2048, nullable: true })
  previewVideoUrl: string | null;

  @Column({ name: 'tutor_id', type: 'int' })
  tutorId: number;

  @Column({ type: 'varchar', length: 200, nullable: true })
  organisation: string | null;

  @Column({ type: 'boolean', default: false })
  published: boolean;

  /** Where a loaded course came from (e.g. "edx:<slug>"), so loading the catalogue twice changes nothing. */
  @Column({ name: 'source_key', type: 'varchar', length: 300, nullable: true, unique: true })
  sourceKey: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
