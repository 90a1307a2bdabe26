import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '../common/error-message';
import { DomainError, validationFailed } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { TransactionRunner } from '../events/transaction-runner';
import { BulkEnrollDto } from './dto/bulk-enrollment.dto';
import { JobAcceptedDto, JobDetailDto, JobListDto, ListJobsQuery } from './dto/job.dto';
import { JobQueue } from './job-queue';
import { toJobDetail, toJobView } from './job.mapper';
import { JobsRepository } from './jobs.repository';

/** Starting jobs and reading their progress; the worker (worker/) runs them. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly tx: TransactionRunner,
    private readonly repo: JobsRepository,
    private readonly queue: JobQueue,
  ) {}

  /**
   * Checks the rows' shape, commits the job with its rows, then enqueues it. The job row is the promise: if the
   * enqueue fails (Redis unreachable), the worker's sweep enqueues it later.
   */
  async startBulkEnrollment(scope: Scope, dto: BulkEnrollDto): Promise<JobAcceptedDto> {
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
    const job = await this.tx.run((tx) => this.repo.insert(tx.em, scope, id, 'enrollment.bulk', rows));
    await this.queue.enqueue([id]).catch((err: unknown) => this.logger.warn({ err: errorMessage(err), jobId: id }, 'Enqueuing a job failed; the sweep will'));
    return { job: toJobView(job) };
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
