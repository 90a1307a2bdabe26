import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { affected, isUniqueViolation, returning, sql, sqlOne } from '../common/database';
import { inPartner, inScope, Mode, Scope, scopeParams } from '../common/scope';
import type { JobStatus, JobType } from './job.entity';

/** A job as the API shows it (its input rows are read only by the worker, through `loadRun`). */
export interface Job {
  id: string;
  partnerId: number;
  mode: Mode;
  type: JobType;
  status: JobStatus;
  total: number;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

interface JobRow {
  id: string;
  partner_id: number;
  mode: Mode;
  type: JobType;
  status: JobStatus;
  total: number;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const JOB_COLUMNS = 'id, partner_id, mode, type, status, total, created_at, started_at, completed_at';

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    partnerId: row.partner_id,
    mode: row.mode,
    type: row.type,
    status: row.status,
    total: row.total,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  };
}

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

/** Every query of the jobs feature. Partner-triggered statements filter on the scope (`inScope`). */
@Injectable()
export class JobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, scope: Scope, id: string, type: JobType, input: unknown[]): Promise<Job> {
    const [row] = await sql<JobRow>(
      em,
      `INSERT INTO jobs (partner_id, mode, id, type, total, input) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${JOB_COLUMNS}`,
      scopeParams(scope, id, type, input.length, JSON.stringify(input)),
    );
    return toJob(row);
  }

  async find(scope: Scope, id: string): Promise<Job | null> {
    const row = await sqlOne<JobRow>(this.dataSource, `SELECT ${JOB_COLUMNS} FROM jobs WHERE ${inScope()} AND id = $3`, scopeParams(scope, id));
    return row && toJob(row);
  }

  /** The caller's jobs, newest first, and how many there are. */
  async page(scope: Scope, offset: number, limit: number): Promise<[Job[], number]> {
    const [rows, count] = await Promise.all([
      sql<JobRow>(
        this.dataSource,
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE ${inScope()} ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
        scopeParams(scope, offset, limit),
      ),
      sqlOne<{ n: number }>(this.dataSource, `SELECT count(*)::int AS n FROM jobs WHERE ${inScope()}`, scopeParams(scope)),
    ]);
    return [rows.map(toJob), count?.n ?? 0];
  }

  async countsOf(jobIds: string[]): Promise<Map<string, JobCounts>> {
    if (!jobIds.length) return new Map();
    const rows = await sql<{ job_id: string; succeeded: number; failed: number }>(
      this.dataSource,
      `SELECT job_id, count(*) FILTER (WHERE status = 'created')::int AS succeeded, count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM job_results WHERE job_id = ANY($1::varchar[]) GROUP BY job_id`,
      [jobIds],
    );
    return new Map(rows.map((r) => [r.job_id, { succeeded: r.succeeded, failed: r.failed }]));
  }

  results(jobId: string): Promise<JobResultRow[]> {
    return sql<JobResultRow>(
      this.dataSource,
      `SELECT index, status, enrollment_id, credits_deducted, error FROM job_results WHERE job_id = $1 ORDER BY index`,
      [jobId],
    );
  }

  // ---- the worker's side ----

  async loadRun<T>(jobId: string): Promise<JobRun<T> | null> {
    const row = await sqlOne<{ partner_id: number; mode: Scope['mode']; type: JobType; status: JobStatus; input: T[]; done: number[] }>(
      this.dataSource,
      `SELECT partner_id, mode, type, status, input, ARRAY(SELECT index FROM job_results WHERE job_id = j.id) AS done FROM jobs j WHERE id = $1`,
      [jobId],
    );
    if (!row) return null;
    return { scope: { partnerId: row.partner_id, mode: row.mode }, type: row.type, status: row.status, input: row.input, done: new Set(row.done) };
  }

  async markStarted(jobId: string): Promise<void> {
    await affected(this.dataSource, `UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [jobId]);
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
    await sql(em, `INSERT INTO job_results (job_id, index, status, enrollment_id, credits_deducted) VALUES ($1, $2, 'created', $3, $4)`, [
      jobId,
      index,
      enrollmentId,
      creditsDeducted,
    ]);
  }

  /** A failed row's outcome, in its own transaction; an outcome already recorded for the row stands. */
  async recordFailed(jobId: string, index: number, error: RowError): Promise<void> {
    await sql(
      this.dataSource,
      `INSERT INTO job_results (job_id, index, status, error) VALUES ($1, $2, 'failed', $3::jsonb) ON CONFLICT (job_id, index) DO NOTHING`,
      [jobId, index, JSON.stringify(error)],
    );
  }

  /** Serialises the bulk starts of one partner, so two at once cannot both pass the outstanding-rows cap. */
  async lockPartnerJobs(em: EntityManager, partnerId: number): Promise<void> {
    await sql(em, `SELECT pg_advisory_xact_lock(hashtext('jobs'), $1)`, [partnerId]);
  }

  /** Rows of the partner's unfinished jobs (both modes) that have no outcome yet. */
  async outstandingRows(em: EntityManager | DataSource, partnerId: number): Promise<number> {
    const row = await sqlOne<{ n: number }>(
      em,
      `SELECT coalesce(sum(j.total - (SELECT count(*) FROM job_results r WHERE r.job_id = j.id)), 0)::int AS n
         FROM jobs j WHERE ${inPartner('j')} AND j.status <> 'completed'`,
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
    const rows = await sql<{ id: string; n: number }>(
      this.dataSource,
      `SELECT j.id, (SELECT coalesce(sum(o.total - (SELECT count(*) FROM job_results r WHERE r.job_id = o.id)), 0)
                       FROM jobs o WHERE o.partner_id = j.partner_id AND o.status <> 'completed')::int AS n
         FROM jobs j WHERE j.id = ANY($1::varchar[])`,
      [jobIds],
    );
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  /** Unfinished jobs with no progress for `idleMs`: candidates for re-enqueueing when their queue entry is gone. */
  async idleUnfinished(idleMs: number, limit: number): Promise<string[]> {
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
