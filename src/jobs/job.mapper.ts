import { JobDetailDto, JobDto, JobResultDto } from './dto/job.dto';
import { Job, JobCounts, JobResultRow } from './jobs.repository';

const NONE: JobCounts = { succeeded: 0, failed: 0 };

export function toJobView(job: Job, counts: JobCounts = NONE): JobDto {
  return {
    id: job.id,
    type: job.type,
    status: job.status,
    total: job.total,
    processed: counts.succeeded + counts.failed,
    succeeded: counts.succeeded,
    failed: counts.failed,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}

export function toResultView(r: JobResultRow): JobResultDto {
  if (r.status === 'created') return { index: r.index, status: 'created', enrollment_id: r.enrollment_id!, credits_deducted: r.credits_deducted! };
  return { index: r.index, status: 'failed', error: r.error! };
}

export function toJobDetail(job: Job, results: JobResultRow[]): JobDetailDto {
  const succeeded = results.filter((r) => r.status === 'created').length;
  return { ...toJobView(job, { succeeded, failed: results.length - succeeded }), results: results.map(toResultView) };
}
