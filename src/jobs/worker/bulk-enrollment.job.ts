import { Injectable, Logger } from '@nestjs/common';
import { isDependencyDown } from '../../common/error-response';
import { DomainError, ERROR_CODES } from '../../common/errors';
import { Scope } from '../../common/scope';
import { EnrollDto } from '../../enrollment/dto/enrollment.dto';
import { EnrollmentsService } from '../../enrollment/enrollments.service';
import { UsersService } from '../../users/users.service';
import { isOutcomeAlreadyRecorded, JobsRepository, RowError } from '../jobs.repository';

/** How a run of the job ends: every row has an outcome, or it stopped early because the worker is shutting down. */
export type RunEnd = 'completed' | 'interrupted';

// Rows in flight at once per job. Each lane holds a database connection (two for the reads) while a row runs.
const LANES = 8;

/**
 * Runs an `enrollment.bulk` job: each row through EnrollmentsService.enroll, exactly as POST /api/enroll. A created
 * row's outcome is written in the enrolment's own transaction, a failed row's in its own transaction, and rows that
 * already have an outcome are skipped, so a run after a crash (or a second run at the same time) never applies a row
 * twice.
 *
 * Rows are spread over a few lanes by learner and each lane runs its rows in row order, so all rows of one learner
 * run one after the other in row order (credits are spent in row order) while different learners' rows overlap.
 */
@Injectable()
export class BulkEnrollmentJob {
  private readonly logger = new Logger(BulkEnrollmentJob.name);

  constructor(
    private readonly repo: JobsRepository,
    private readonly enrollments: EnrollmentsService,
    private readonly users: UsersService,
  ) {}

  /**
   * `lastAttempt`: an unexpected error (a bug, not an outage) is then recorded as the row's internal_error, so one
   * poisoned row cannot hold the job back forever. `stopping` is asked between rows.
   */
  async run(jobId: string, lastAttempt: boolean, stopping: () => boolean): Promise<RunEnd> {
    const job = await this.repo.loadRun<EnrollDto>(jobId);
    if (!job || job.status === 'completed') return 'completed';
    await this.repo.markStarted(jobId);
    const lanes = await this.lanesOf(job.scope, job.input, job.done);
    let failed = false;
    let interrupted = false;
    const settled = await Promise.allSettled(
      lanes.map(async (indexes) => {
        for (const index of indexes) {
          if (failed) return;
          if (stopping()) return void (interrupted = true);
          await this.row(job.scope, jobId, index, job.input[index], lastAttempt).catch((e: unknown) => {
            failed = true; // the other lanes stop after their current row; the queue retries the job
            throw e;
          });
        }
      }),
    );
    const error = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (error) throw error.reason;
    if (interrupted) return 'interrupted';
    await this.repo.markCompleted(jobId);
    return 'completed';
  }

  /**
   * The indexes still to run, by lane. A learner named by external_user_id in one row and by user_id in another is
   * one learner: external ids are looked up first (they never change), so both rows share a lane.
   */
  private async lanesOf(scope: Scope, rows: EnrollDto[], done: Set<number>): Promise<number[][]> {
    const pending = rows.map((_, i) => i).filter((i) => !done.has(i));
    const ids = await this.users.idsByExternalId(
      scope,
      pending.filter((i) => rows[i].user_id == null).map((i) => rows[i].external_user_id!),
    );
    const lanes: number[][] = Array.from({ length: LANES }, () => []);
    for (const i of pending) {
      const { user_id: userId, external_user_id: ext } = rows[i];
      const learner = userId ?? ids.get(ext!) ?? `ext:${ext}`;
      lanes[laneOf(learner)].push(i);
    }
    return lanes.filter((l) => l.length);
  }

  private async row(scope: Scope, jobId: string, index: number, row: EnrollDto, lastAttempt: boolean): Promise<void> {
    try {
      await this.enrollments.enroll(scope, row, {
        inTransaction: (tx, result) => this.repo.recordCreated(tx.em, jobId, index, result.enrollment_id, result.credits_deducted),
      });
    } catch (e: unknown) {
      if (isOutcomeAlreadyRecorded(e)) return; // another run got there first; its outcome stands, this one rolled back
      if (e instanceof DomainError) return this.repo.recordFailed(jobId, index, rowError(e));
      if (!lastAttempt || isDependencyDown(e)) throw e; // retried by the queue; nothing of this row was written
      this.logger.error({ err: e, jobId, index }, 'A bulk enrolment row failed unexpectedly on the last attempt');
      await this.repo.recordFailed(jobId, index, { code: 'internal_error', message: ERROR_CODES.internal_error[1] });
    }
  }
}

function laneOf(learner: number | string): number {
  if (typeof learner === 'number') return learner % LANES;
  let h = 0;
  for (let i = 0; i < learner.length; i++) h = (h * 31 + learner.charCodeAt(i)) | 0;
  return Math.abs(h) % LANES;
}

function rowError(e: DomainError): RowError {
  return e.details === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, details: e.details };
}
