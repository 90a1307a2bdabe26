import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

export type JobType = 'enrollment.bulk';
export type JobStatus = 'queued' | 'running' | 'completed';

/**
 * A background job a partner started. Its input rows (`input`, jsonb) are read only by the worker, so they are not
 * mapped here; its per-row outcomes are `job_results` rows (jobs.repository.ts).
 */
@Entity('jobs')
export class Job extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  type: JobType;

  @Column({ type: 'varchar', length: 10 })
  status: JobStatus;

  @Column({ type: 'int' })
  total: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
