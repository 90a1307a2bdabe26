import type { HttpClient } from '../support/http';
import { sleep } from '../support/webhook-receiver';

export interface BulkRow {
  user_id?: number;
  external_user_id?: string;
  course_id: number;
  deduct_credits?: boolean;
}

/** Starts a bulk enrolment and returns the 202's job. */
export async function startBulk(api: HttpClient, rows: BulkRow[], headers: Record<string, string> = {}): Promise<{ id: string; [k: string]: unknown }> {
  const res = await api.post('/api/enroll/bulk', { enrollments: rows }, { headers });
  if (res.status !== 202) throw new Error(`bulk enrolment refused: ${res.status} ${res.text}`);
  return res.body.data.job;
}

/** Polls GET /api/jobs/{id} until the job is completed and returns it with its results. */
export async function waitForJob(api: HttpClient, id: string, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/jobs/${id}`);
    if (res.status !== 200) throw new Error(`GET job ${id}: ${res.status} ${res.text}`);
    if (res.body.data.status === 'completed') return res.body.data;
    if (Date.now() > until) throw new Error(`job ${id} not completed within ${timeoutMs} ms: ${JSON.stringify({ ...res.body.data, results: undefined })}`);
    await sleep(100);
  }
}
