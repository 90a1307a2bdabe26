import { randomBytes } from 'node:crypto';

export interface SoakCourse {
  id: number;
  creditCost: number;
  topics: Array<{ id: number; hasQuiz: boolean }>;
}

/** A request sent with an Idempotency-Key, and the answer it got (replayed after the faults to check it is kept). */
export interface KeyedCall {
  key: string;
  apiKey: string;
  path: string;
  body: unknown;
  at: number;
  status: number;
  response: unknown;
}

export interface Stats {
  byRoute: Map<string, { count: number; statuses: Map<number, number>; totalMs: number; maxMs: number }>;
  serverErrors: Array<{ route: string; status: number; body: string; at: number }>;
  networkErrors: number;
  negativeBalances: number;
  /** Every answer: which key, when it was sent, its status (for the quota accounting around the Redis wipe). */
  calls: Array<{ apiKey: string; at: number; status: number }>;
  /** Ids of the writes the API acknowledged (2xx): each must be in PostgreSQL at the end. */
  acknowledged: { users: number[]; transactions: string[]; enrollments: number[]; webinars: string[] };
  keyed: KeyedCall[];
}

export function newStats(): Stats {
  return {
    byRoute: new Map(),
    serverErrors: [],
    networkErrors: 0,
    negativeBalances: 0,
    calls: [],
    acknowledged: { users: [], transactions: [], enrollments: [], webinars: [] },
    keyed: [],
  };
}

const QUERIES = ['beginner course', 'free data course', 'advanced design under 5 hours', 'learn pyhton', 'soak course', 'management for beginners'];
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];
const id = () => randomBytes(6).toString('hex');

/**
 * One simulated integrator for one partner: registers learners, tops up, enrols, completes courses, runs webinars
 * and searches, round-robin over the API instances, until the deadline. It keeps just enough state to make
 * meaningful calls; expected refusals (402, 409 …) are normal traffic, any 5xx is recorded, and so is every
 * acknowledged write and every request sent with an Idempotency-Key (top-ups without a reference, webinar creations).
 */
export class VirtualUser {
  private readonly users: number[] = [];
  private readonly enrollments: Array<{ id: number; course: SoakCourse; done: number }> = [];
  private webinar?: { id: string; state: 'scheduled' | 'live'; joins: number };
  private calls = 0;
  private lastReference?: { reference: string; user: number; amount: number };

  constructor(
    private readonly apis: string[],
    private readonly key: string,
    private readonly courses: SoakCourse[],
    private readonly stats: Stats,
  ) {}

  /** Sends requests one after another for as long as `running()` says. */
  async run(running: () => boolean): Promise<void> {
    while (running()) {
      try {
        await this.step();
      } catch {
        this.stats.networkErrors++;
      }
    }
  }

  private async step(): Promise<void> {
    const r = Math.random();
    if (this.users.length < 3 || r < 0.12) return this.register();
    if (r < 0.27) return this.topUp();
    if (r < 0.45) return this.enroll();
    if (r < 0.7) return this.progress();
    if (r < 0.82) return this.webinarStep();
    if (r < 0.92) return void (await this.call('POST', '/api/search', 'search', { query: pick(QUERIES), limit: 5 }));
    await this.call('GET', `/api/credits/balance/${pick(this.users)}`, 'balance');
  }

  private async register(): Promise<void> {
    const ext = `soak-${id()}`;
    const r = await this.call('POST', '/api/users', 'users.create', { external_user_id: ext, name: `Learner ${ext}`, email: `${ext}@example.com` });
    if (r.status === 201) {
      this.users.push(r.body.data.id);
      this.stats.acknowledged.users.push(r.body.data.id);
    }
  }

  private async topUp(): Promise<void> {
    // Now and then the integrator retries a top-up with the same reference: it must not credit twice.
    if (this.lastReference && Math.random() < 0.15) {
      const { reference, user, amount } = this.lastReference;
      await this.call('POST', '/api/credits/topup', 'credits.topup', { user_id: user, amount, reference });
      return;
    }
    const user = pick(this.users);
    const amount = 5 + Math.floor(Math.random() * 30);
    // Half the top-ups carry no reference, only an Idempotency-Key: the key alone must keep them from crediting twice.
    if (Math.random() < 0.5) {
      const r = await this.call('POST', '/api/credits/topup', 'credits.topup', { user_id: user, amount, source: 'soak' }, `topup-${id()}`);
      if (r.status === 201) this.stats.acknowledged.transactions.push(r.body.data.transaction_id);
      return;
    }
    const reference = `pay-${id()}`;
    const r = await this.call('POST', '/api/credits/topup', 'credits.topup', { user_id: user, amount, reference, source: 'soak' });
    if (r.status === 201) {
      this.lastReference = { reference, user, amount };
      this.stats.acknowledged.transactions.push(r.body.data.transaction_id);
    }
  }

  private async enroll(): Promise<void> {
    const course = pick(this.courses);
    const r = await this.call('POST', '/api/enroll', 'enroll', { user_id: pick(this.users), course_id: course.id });
    if (r.status === 201) {
      this.enrollments.push({ id: r.body.data.enrollment_id, course, done: 0 });
      this.stats.acknowledged.enrollments.push(r.body.data.enrollment_id);
      if (r.body.data.credits_remaining < 0) this.stats.negativeBalances++;
    }
  }

  private async progress(): Promise<void> {
    const open = this.enrollments.filter((e) => e.done < e.course.topics.length);
    if (!open.length) return this.enroll();
    const e = pick(open);
    const topic = e.course.topics[e.done];
    const r = await this.call('POST', `/api/enrollments/${e.id}/progress`, 'progress', { topic_id: topic.id, quiz_passed: topic.hasQuiz ? true : undefined });
    if (r.status === 200) e.done++;
  }

  private async webinarStep(): Promise<void> {
    const w = this.webinar;
    if (!w) {
      const r = await this.call(
        'POST',
        '/api/webinars/create',
        'webinars.create',
        {
          title: `Soak webinar ${id()}`,
          host_id: pick(this.users),
          scheduled_at: new Date(Date.now() + 60_000).toISOString(),
          max_attendees: 4,
        },
        `webinar-${id()}`,
      );
      if (r.status === 201) {
        this.webinar = { id: r.body.data.webinar_id, state: 'scheduled', joins: 0 };
        this.stats.acknowledged.webinars.push(r.body.data.webinar_id);
      }
      return;
    }
    if (w.state === 'scheduled') {
      const r = await this.call('POST', `/api/webinars/${w.id}/start`, 'webinars.start');
      if (r.status === 200) w.state = 'live';
      return;
    }
    if (w.joins < 6) {
      w.joins++;
      await this.call('POST', `/api/webinars/${w.id}/join`, 'webinars.join', { user_id: pick(this.users) });
      return;
    }
    await this.call('POST', `/api/webinars/${w.id}/end`, 'webinars.end');
    this.webinar = undefined;
  }

  private async call(method: string, path: string, route: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; body: any }> {
    const base = this.apis[this.calls++ % this.apis.length];
    const at = Date.now();
    const started = performance.now();
    const res = await fetch(base + path, {
      method,
      headers: {
        'x-api-key': this.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    const entry = this.stats.byRoute.get(route) ?? { count: 0, statuses: new Map(), totalMs: 0, maxMs: 0 };
    entry.count++;
    entry.totalMs += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
    entry.statuses.set(res.status, (entry.statuses.get(res.status) ?? 0) + 1);
    this.stats.byRoute.set(route, entry);
    if (res.status >= 500) this.stats.serverErrors.push({ route, status: res.status, body: text.slice(0, 300), at });
    this.stats.calls.push({ apiKey: this.key, at, status: res.status });
    const parsed = text ? JSON.parse(text) : undefined;
    if (idempotencyKey) this.stats.keyed.push({ key: idempotencyKey, apiKey: this.key, path, body, at, status: res.status, response: parsed });
    return { status: res.status, body: parsed };
  }
}
