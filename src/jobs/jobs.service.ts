import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { AuthContext } from '../auth/auth-context';
import { QuotaState, UsageLimiter } from '../auth/usage-limiter';
import { errorMessage } from '../common/error-message';
import { DomainError, validationFailed } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import type { Scope } from '../common/scope';
import { TransactionRunner } from '../events/transaction-runner';
import { BulkEnrollDto } from './dto/bulk-enrollment.dto';
import { JobAcceptedDto, JobDetailDto, JobListDto, ListJobsQuery } from './dto/job.dto';
import { JobQueue } from './job-queue';
import { toJobDetail, toJobView } from './job.mapper';
import { JobsRepository } from './jobs.repository';

// A job of 1,000 rows takes a few seconds: worth waiting that long before trying again.
const OUTSTANDING_RETRY_AFTER_SECONDS = 10;

/** Starting jobs and reading their progress; the worker (worker/) runs them. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly tx: TransactionRunner,
    private readonly repo: JobsRepository,
    private readonly queue: JobQueue,
    private readonly usage: UsageLimiter,
  ) {}

  /**
   * Checks the rows' shape, commits the job with its rows, then enqueues it. The job row is the promise: if the
   * enqueue fails (Redis unreachable), the worker's sweep enqueues it later.
   */
  async startBulkEnrollment(auth: AuthContext, dto: BulkEnrollDto): Promise<{ accepted: JobAcceptedDto; quota: QuotaState | null }> {
    const scope = auth.scope;
    const missing = dto.enrollments.flatMap((row, i) =>
      row.user_id == null && row.external_user_id == null ? [{ field: `enrollments[${i}].user_id`, message: 'user_id or external_user_id is required' }] : [],
    );
    if (missing.length) throw validationFailed(missing);
    const rows = dto.enrollments.map((r) => ({
      user_id: r.user_id ?? undefined,
      external_user_id: r.external_user_id ?? undefined,
      course_id: r.course_id,
      deduct_credits: r.deduct_credits ?? undefined,
    }));
    const id = newId('job');
    // Every row is a call: counted (or refused, counting nothing) before the job exists, and given back if the job
    // then cannot be made. Counted outside the transaction, which may run again after a deadlock.
    const quota = await this.usage.consumeCalls(scope.partnerId, scope.mode, auth.plan.monthlyQuota, rows.length, `${rows.length} rows, one call each`);
    const job = await this.tx
      .run(async (tx) => {
        await this.repo.lockPartnerJobs(tx.em, scope.partnerId);
        await this.checkOutstanding(tx.em, auth, rows.length);
        return this.repo.insert(tx.em, scope, id, 'enrollment.bulk', rows);
      })
      .catch(async (e: unknown) => {
        if (quota) await this.usage.giveBack(scope.partnerId, scope.mode, rows.length).catch(() => undefined);
        throw e;
      });
    const enqueued = this.repo.priorities([id]).then((priorities) => this.queue.enqueue(priorities));
    await enqueued.catch((err: unknown) => this.logger.warn({ err: errorMessage(err), jobId: id }, 'Enqueuing a job failed; the sweep will'));
    return { accepted: { job: toJobView(job) }, quota };
  }

  /** Rows accepted and not yet processed are capped per partner (both modes), so one partner cannot fill the queue. */
  private async checkOutstanding(em: EntityManager, auth: AuthContext, rows: number): Promise<void> {
    const allowed = auth.plan.bulkOutstandingRows;
    if (allowed === null) return;
    const outstanding = await this.repo.outstandingRows(em, auth.scope.partnerId);
    if (outstanding + rows > allowed) {
      throw new DomainError(
        'rate_limited',
        { limit: 'bulk_outstanding_rows', allowed, outstanding, rows },
        `Your plan allows ${allowed} bulk rows waiting at once and ${outstanding} are; retry when some of your jobs have completed.`,
        { 'Retry-After': String(OUTSTANDING_RETRY_AFTER_SECONDS) },
      );
    }
  }

  async get(scope: Scope, id: string): Promise<JobDetailDto> {
    const job = await this.repo.find(scope, id);
    if (!job) throw new DomainError('job_not_found');
    return toJobDetail(job, await this.repo.results(job.id));
  }

  async list(scope: Scope, query: ListJobsQuery): Promise<JobListDto> {
    const [jobs, total] = await this.repo.page(scope, offsetOf(query), query.limit);
    const counts = await this.repo.countsOf(jobs.map((j) => j.id));
    return pageOf(
      'jobs',
      jobs.map((j) => toJobView(j, counts.get(j.id))),
      total,
      query,
    );
  }
}
