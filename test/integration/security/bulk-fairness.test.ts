import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { UsageLimiter } from '../../../src/auth/usage-limiter';
import { JOBS_QUEUE } from '../../../src/redis/queues';
import { RedisService } from '../../../src/redis/redis.service';
import { startApp, TestApp } from '../../support/app';
import { createCourse, createPartner, CreatedPartner, unique } from '../../support/factories';
import { sleep } from '../../support/webhook-receiver';

/**
 * Issue 26, finding 3: bulk jobs ran from one shared first-come-first-served queue, so fifteen 1,000-row jobs of one
 * partner made another partner's 1-row job wait 10.4 s; and five 1,000-row jobs were accepted in 1.7 s and counted as
 * five calls. Now every row counts as a call (refused up front when the quota cannot cover the rows), outstanding
 * rows are capped per partner (the plans table's bulk_outstanding_rows), and jobs run fairly across partners.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

async function learners(app: TestApp, p: CreatedPartner, n: number): Promise<number[]> {
  const tag = unique('fair');
  const rows: Array<{ id: number }> = await app.db.query(
    `INSERT INTO users (partner_id, mode, external_user_id, name, email)
     SELECT $1, $2, $3 || '-' || g, 'Learner ' || g, 'l' || g || '@example.com' FROM generate_series(1, $4) g RETURNING id`,
    [p.partnerId, p.mode, tag, n],
  );
  return rows.map((r) => r.id);
}

const rowsFor = (userIds: number[], courseId: number) => userIds.map((user_id) => ({ user_id, course_id: courseId, deduct_credits: false }));

describe('bulk rows count toward the monthly quota', () => {
  it('counts one call per row, and refuses up front a job the remaining quota cannot cover', async () => {
    const p = await createPartner(t, { plan: 'growth' });
    const { course } = await createCourse(t.db, {});
    const users = await learners(t, p, 30);
    const limiter = t.app.get(UsageLimiter);
    // 50,000 a month on growth: leave 20 calls.
    await t.app.get(RedisService).client.set(limiter.quotaKey(p.partnerId, 'test'), 50_000 - 20);

    const refused = await p.http.post('/api/enroll/bulk', { enrollments: rowsFor(users, course.id) });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('monthly_quota_exceeded');
    expect(refused.body.error.details).toMatchObject({ limit: 50_000, remaining: 20, rows: 30 });
    expect(refused.body.error.message).toMatch(/30 rows/);
    // Nothing was counted for the refused call, and no job was made.
    expect(await limiter.used(p.partnerId, 'test')).toBe(50_000 - 20);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM jobs WHERE partner_id = $1`, [p.partnerId]);
    expect(n).toBe(0);

    const accepted = await p.http.post('/api/enroll/bulk', { enrollments: rowsFor(users.slice(0, 15), course.id) });
    expect(accepted.status).toBe(202);
    expect(await limiter.used(p.partnerId, 'test')).toBe(50_000 - 20 + 15);
    expect(accepted.headers.get('x-quota-remaining')).toBe('5');
  });
});

describe('outstanding bulk rows are capped per partner', () => {
  it('reads the cap from the plans table and refuses a job beyond it with 429, counting both modes', async () => {
    const rows: Array<{ code: string; bulk_outstanding_rows: number }> = await t.db.query(`SELECT code, bulk_outstanding_rows FROM plans ORDER BY code`);
    expect(Object.fromEntries(rows.map((r) => [r.code, r.bulk_outstanding_rows]))).toEqual({ starter: 1000, growth: 5000, enterprise: 20000 });

    const p = await createPartner(t, { plan: 'growth' });
    const { course } = await createCourse(t.db, {});
    const [user] = await learners(t, p, 1);
    // 4,999 rows waiting, as if just accepted (the workers would otherwise work them off while this test runs):
    // three jobs in test mode and two in live mode, one of them with a row already processed.
    const input = (n: number) => JSON.stringify(Array.from({ length: n }, () => ({ user_id: user, course_id: course.id })));
    const waiting = [...Array(3).fill('test'), 'live', 'live'].map((mode: string) => ({
      id: `job_${unique('w')
        .replace(/[^0-9A-Za-z]/g, '')
        .padEnd(22, '0')
        .slice(-22)}`,
      mode,
    }));
    // The in-process worker could finish the accepted 1-row job before the next request, leaving room for one more
    // row: the queue is paused so that job is still outstanding when the cap is checked.
    const queue = t.app.get<Queue>(getQueueToken(JOBS_QUEUE));
    await queue.pause();
    try {
      for (const job of waiting) {
        await t.db.query(`INSERT INTO jobs (id, partner_id, mode, type, total, input) VALUES ($1, $2, $3, 'enrollment.bulk', 1000, $4::jsonb)`, [
          job.id,
          p.partnerId,
          job.mode,
          input(1000),
        ]);
      }
      await t.db.query(`UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1`, [waiting[4].id]);
      await t.db.query(`INSERT INTO job_results (job_id, index, status, error) VALUES ($1, 0, 'failed', '{"code":"user_not_found","message":"x"}')`, [
        waiting[4].id,
      ]);

      expect((await p.http.post('/api/enroll/bulk', { enrollments: rowsFor([user], course.id) })).status).toBe(202);
      const refused = await p.http.post('/api/enroll/bulk', { enrollments: rowsFor([user], course.id) });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'rate_limited',
        details: { limit: 'bulk_outstanding_rows', allowed: 5000, outstanding: 5000, rows: 1 },
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await t.db.query(`DELETE FROM jobs WHERE id = ANY($1)`, [waiting.map((j) => j.id)]);
      await queue.resume();
    }
  });
});

describe('bulk jobs run fairly across partners', () => {
  it("starts another partner's 1-row job within 2 s whatever one partner has queued", async () => {
    const heavy = await createPartner(t, { plan: 'enterprise' });
    const light = await createPartner(t, { plan: 'enterprise' });
    const users = await learners(t, heavy, 1000);
    const [lightUser] = await learners(t, light, 1);
    const jobs: string[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        const { course } = await createCourse(t.db, {});
        const res = await heavy.http.post('/api/enroll/bulk', { enrollments: rowsFor(users, course.id) });
        expect(res.status).toBe(202);
        jobs.push(res.body.data.job.id);
      }
      // Let the heavy partner's jobs get going.
      await sleep(500);
      const { course } = await createCourse(t.db, {});
      const started = Date.now();
      const res = await light.http.post('/api/enroll/bulk', { enrollments: rowsFor([lightUser], course.id) });
      expect(res.status).toBe(202);
      const id = res.body.data.job.id as string;
      let waited = 0;
      for (;;) {
        const job = (await light.http.get(`/api/jobs/${id}`)).body.data;
        waited = Date.now() - started;
        if (job.status !== 'queued' || waited > 15_000) break;
        await sleep(50);
      }
      expect(waited).toBeLessThan(2000);
    } finally {
      // The heavy partner's rows are not this test's subject: stop them.
      await t.db.query(`DELETE FROM jobs WHERE partner_id = $1`, [heavy.partnerId]);
    }
  }, 60_000);
});
