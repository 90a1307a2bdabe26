import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, returning, sql, sqlOne } from '../common/database';
import { Scope, scoped } from '../common/scope';
import { Job, JobStatus, JobType } from './job.entity';

export interface JobCounts {
  succeeded: number;
  failed: number;
}

export interface RowError {
  code: string;
  message: string;
  details?: unknown;
}

export interface JobResultRow {
  index: number;
  status: 'created' | 'failed';
  enrollment_id: number | null;
  credits_deducted: number | null;
  error: RowError | null;
}

/** What the worker needs to run a job: its owner, its input rows and the indexes that already have an outcome. */
export interface JobRun<T> {
  scope: Scope;
  type: JobType;
  status: JobStatus;
  input: T[];
  done: Set<number>;
}

const RESULT_PK = 'job_results_pkey';

/** True when a row's outcome could not be written because another run of the job recorded it first. */
export function isOutcomeAlreadyRecorded(e: unknown): boolean {
  return isUniqueViolation(e, RESULT_PK);
}

/** Every query of the jobs feature. Partner-triggered reads go through Scoped. */
@Injectable()
export class JobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, scope: Scope, id: string, type: JobType, input: unknown[]): Promise<Job> {
    // created_at: timestamptz
    const [row] = await sql<{ created_at: Date }>(
      em,
      `INSERT INTO jobs (id, partner_id, mode, type, total, input) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING created_at`,
      [id, scope.partnerId, scope.mode, type, input.length, JSON.stringify(input)],
    );
    return Object.assign(new Job(), {
      id,
      partnerId: scope.partnerId,
      mode: scope.mode,
      type,
      status: 'queued',
      total: input.length,
      createdAt: row.created_at,
      startedAt: null,
      completedAt: null,
    });
  }

  find(scope: Scope, id: string): Promise<Job | null> {
    return scoped(this.dataSource.manager, scope).findOne(Job, { id });
  }

  /** The caller's jobs, newest first. */
  async page(scope: Scope, offset: number, limit: number): Promise<[Job[], number]> {
    return scoped(this.dataSource.manager, scope)
      .query(Job, 'j')
      .orderBy('j.created_at', 'DESC')
      .addOrderBy('j.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getManyAndCount();
  }

  async countsOf(jobIds: string[]): Promise<Map<string, JobCounts>> {
    if (!jobIds.length) return new Map();
    // job_id: varchar; succeeded, failed: count(*)::int
    const rows = await sql<{ job_id: string; succeeded: number; failed: number }>(
      this.dataSource,
      `SELECT job_id, count(*) FILTER (WHERE status = 'created')::int AS succeeded, count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM job_results WHERE job_id = ANY($1::varchar[]) GROUP BY job_id`,
      [jobIds],
    );
    return new Map(rows.map((r) => [r.job_id, { succeeded: r.succeeded, failed: r.failed }]));
  }

  results(jobId: string): Promise<JobResultRow[]> {
    // index: int; status: varchar; enrollment_id, credits_deducted: int or null; error: jsonb or null
    return sql<JobResultRow>(
      this.dataSource,
      `SELECT index, status, enrollment_id, credits_deducted, error FROM job_results WHERE job_id = $1 ORDER BY index`,
      [jobId],
    );
  }

  // ---- the worker's side ----

  async loadRun<T>(jobId: string): Promise<JobRun<T> | null> {
    // partner_id: int; mode, type, status: varchar; input: jsonb array; done: int[]
    const row = await sqlOne<{ partner_id: number; mode: Scope['mode']; type: JobType; status: JobStatus; input: T[]; done: number[] }>(
      this.dataSource,
      `SELECT partner_id, mode, type, status, input, ARRAY(SELECT index FROM job_results WHERE job_id = j.id) AS done FROM jobs j WHERE id = $1`,
      [jobId],
    );
    if (!row) return null;
    return { scope: { partnerId: row.partner_id, mode: row.mode }, type: row.type, status: row.status, input: row.input, done: new Set(row.done) };
  }

  async markStarted(jobId: string): Promise<void> {
    await this.dataSource.query(`UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [jobId]);
  }

  /** Completes the job once every row has an outcome; false while some row has none. */
  async markCompleted(jobId: string): Promise<boolean> {
    const rows = await returning<{ id: string }>(
      this.dataSource,
      `UPDATE jobs j SET status = 'completed', completed_at = now()
        WHERE id = $1 AND status = 'running' AND (SELECT count(*) FROM job_results r WHERE r.job_id = j.id) = j.total
        RETURNING id`,
      [jobId],
    );
    return rows.length > 0;
  }

  /** A created row's outcome, inside the transaction that applied the row. A second outcome for it fails the transaction. */
  async recordCreated(em: EntityManager, jobId: string, index: number, enrollmentId: number, creditsDeducted: number): Promise<void> {
    await em.query(`INSERT INTO job_results (job_id, index, status, enrollment_id, credits_deducted) VALUES ($1, $2, 'created', $3, $4)`, [
      jobId,
      index,
      enrollmentId,
      creditsDeducted,
    ]);
  }

  /** A failed row's outcome, in its own transaction; an outcome already recorded for the row stands. */
  async recordFailed(jobId: string, index: number, error: RowError): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO job_results (job_id, index, status, error) VALUES ($1, $2, 'failed', $3::jsonb) ON CONFLICT (job_id, index) DO NOTHING`,
      [jobId, index, JSON.stringify(error)],
    );
  }

  /** Unfinished jobs with no progress for `idleMs`: candidates for re-enqueueing when their queue entry is gone. */
  /** Serialises the bulk starts of one partner, so two at once cannot both pass the outstanding-rows cap. */
  async lockPartnerJobs(em: EntityManager, partnerId: number): Promise<void> {
    await sql(em, `SELECT pg_advisory_xact_lock(hashtext('jobs'), $1)`, [partnerId]);
  }

  /** Rows of the partner's unfinished jobs (both modes) that have no outcome yet. */
  async outstandingRows(em: EntityManager | DataSource, partnerId: number): Promise<number> {
    const row = await sqlOne<{ n: number }>(
      em,
      `SELECT coalesce(sum(j.total - (SELECT count(*) FROM job_results r WHERE r.job_id = j.id)), 0)::int AS n
         FROM jobs j WHERE j.partner_id = $1 AND j.status <> 'completed'`,
      [partnerId],
    );
    return row?.n ?? 0;
  }

  /**
   * The queue priority of each job: its partner's outstanding rows (lower runs first). A partner with little waiting
   * goes ahead of one with much, so a small job never waits behind another partner's backlog.
   */
  async priorities(jobIds: string[]): Promise<Map<string, number>> {
    if (!jobIds.length) return new Map();
    // id: varchar; n: int
    const rows = await sql<{ id: string; n: number }>(
      this.dataSource,
      `SELECT j.id, (SELECT coalesce(sum(o.total - (SELECT count(*) FROM job_results r WHERE r.job_id = o.id)), 0)
                       FROM jobs o WHERE o.partner_id = j.partner_id AND o.status <> 'completed')::int AS n
         FROM jobs j WHERE j.id = ANY($1::varchar[])`,
      [jobIds],
    );
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  async idleUnfinished(idleMs: number, limit: number): Promise<string[]> {
    // id: varchar
    const rows = await sql<{ id: string }>(
      this.dataSource,
      `SELECT j.id FROM jobs j
        WHERE j.status <> 'completed'
          AND coalesce((SELECT max(r.processed_at) FROM job_results r WHERE r.job_id = j.id), j.started_at, j.created_at) < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY j.created_at LIMIT $2`,
      [idleMs, limit],
    );
    return rows.map((r) => r.id);
  }
}
