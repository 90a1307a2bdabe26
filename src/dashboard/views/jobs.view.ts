import type { JobDetailDto, JobDto } from '../../jobs/dto/job.dto';
import { html, pager, Safe, statusBadge, table, time } from './html';

export function jobsView(list: { jobs: JobDto[]; total: number; page: number; pages: number }): Safe {
  const rows = list.jobs.map(
    (j) =>
      html`<tr>
        <td><a href="/dashboard/jobs/${j.id}">${j.id}</a></td>
        <td>${j.type}</td>
        <td>${statusBadge(j.status)}</td>
        <td>${j.processed} / ${j.total}</td>
        <td>${j.succeeded}</td>
        <td>${j.failed}</td>
        <td>${time(j.created_at)}</td>
      </tr>`,
  );
  return html`${table('Bulk jobs', ['Job', 'Type', 'Status', 'Processed', 'Succeeded', 'Failed', 'Created'], rows, 'No bulk jobs yet.')}
  ${pager('/dashboard/jobs', {}, list.page, list.pages)}`;
}

export function jobView(j: JobDetailDto): Safe {
  const rows = j.results.map(
    (r) =>
      html`<tr>
        <td>${r.index}</td>
        <td>${statusBadge(r.status)}</td>
        <td>${r.enrollment_id ?? '—'}</td>
        <td>${r.credits_deducted ?? '—'}</td>
        <td>${r.error ? html`<code>${r.error.code}</code> ${r.error.message}` : '—'}</td>
      </tr>`,
  );
  return html`<section class="card">
      <dl class="facts">
        <dt>Status</dt>
        <dd>${statusBadge(j.status)}</dd>
        <dt>Rows</dt>
        <dd>${j.processed} of ${j.total} processed: ${j.succeeded} succeeded, ${j.failed} failed</dd>
        <dt>Created</dt>
        <dd>${time(j.created_at)}</dd>
        <dt>Started</dt>
        <dd>${time(j.started_at)}</dd>
        <dt>Completed</dt>
        <dd>${time(j.completed_at)}</dd>
      </dl>
    </section>
    <h2>Rows</h2>
    ${table('Job rows', ['Row', 'Outcome', 'Enrolment', 'Credits deducted', 'Error'], rows, 'No row processed yet.')}`;
}
