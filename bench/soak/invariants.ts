import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { SoakReceiver } from './receivers';
import type { Stats } from './traffic';

export interface Check {
  name: string;
  value: string;
  ok: boolean;
}

/** Ledger and enrolment invariants, straight from PostgreSQL. */
export async function dataChecks(db: DataSource): Promise<Check[]> {
  const [ledger] = await db.query(`
    SELECT count(*)::int AS accounts,
           count(*) FILTER (WHERE a.balance <> coalesce(t.sum, 0))::int AS mismatched,
           count(*) FILTER (WHERE a.balance < 0)::int AS negative,
           coalesce(sum(a.balance), 0)::bigint AS total
      FROM credit_accounts a
      LEFT JOIN (SELECT user_id, sum(amount) AS sum FROM credit_transactions GROUP BY user_id) t ON t.user_id = a.user_id`);
  const [orphanLedger] = await db.query(`
    SELECT count(DISTINCT t.user_id)::int AS n FROM credit_transactions t LEFT JOIN credit_accounts a ON a.user_id = t.user_id WHERE a.user_id IS NULL`);
  const [counts] = await db.query(`
    SELECT count(*)::int AS courses, count(*) FILTER (WHERE course_enrolled(c.id) <> coalesce(e.n, 0))::int AS mismatched, coalesce(sum(e.n), 0)::int AS enrolments
      FROM courses c LEFT JOIN (SELECT course_id, count(*) AS n FROM enrollments GROUP BY course_id) e ON e.course_id = c.id`);
  const [completed] = await db.query(`
    SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed,
           count(*) FILTER (WHERE status = 'completed' AND NOT EXISTS (SELECT 1 FROM certificates c WHERE c.enrollment_id = e.id))::int AS without_certificate
      FROM enrollments e`);
  const [seats] = await db.query(`
    SELECT count(*)::int AS webinars,
           count(*) FILTER (WHERE w.max_attendees IS NOT NULL AND a.n > w.max_attendees)::int AS over,
           count(*) FILTER (WHERE w.seats_taken <> coalesce(a.n, 0))::int AS miscounted
      FROM webinars w LEFT JOIN (SELECT webinar_id, count(*) AS n FROM webinar_attendees GROUP BY webinar_id) a ON a.webinar_id = w.id`);
  return [
    {
      name: 'balances = ledger sums',
      value: `${ledger.accounts} accounts, ${ledger.mismatched} mismatched, ${orphanLedger.n} ledgers without account`,
      ok: ledger.mismatched === 0 && orphanLedger.n === 0,
    },
    { name: 'no negative balance', value: `${ledger.negative} negative (total ${ledger.total} credits)`, ok: ledger.negative === 0 },
    {
      name: 'course enrolled = enrolment rows',
      value: `${counts.courses} courses, ${counts.enrolments} enrolments, ${counts.mismatched} mismatched`,
      ok: counts.mismatched === 0,
    },
    {
      name: 'completed enrolments have a certificate',
      value: `${completed.completed} completed, ${completed.without_certificate} without`,
      ok: completed.without_certificate === 0,
    },
    {
      name: 'webinar seats within max_attendees',
      value: `${seats.webinars} webinars, ${seats.over} over capacity, ${seats.miscounted} seat counts off`,
      ok: seats.over === 0 && seats.miscounted === 0,
    },
  ];
}

interface Expected {
  event_id: string;
  type: string;
  subscription_id: string;
  url: string;
  delivery_id: string | null;
  status: string | null;
}

/**
 * Every committed event must have reached every matching subscription (same partner and mode, type listed):
 * a delivered delivery row, and at the receiver at least one receipt of that webhook_id, every receipt of it
 * byte-identical, correctly signed, naming the same webhook_id and event.
 */
export async function deliveryChecks(db: DataSource, receivers: SoakReceiver[], secrets: Map<string, string>): Promise<Check[]> {
  const expected: Expected[] = await db.query(`
    SELECT e.id AS event_id, e.type, s.id AS subscription_id, s.url, d.id AS delivery_id, d.status
      FROM events e
      JOIN webhook_subscriptions s ON s.partner_id = e.partner_id AND s.mode = e.mode AND e.type = ANY (s.events) AND s.created_at <= e.created_at
      LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.subscription_id = s.id`);
  const byUrl = new Map(receivers.map((r) => [r.url, r]));
  const receipts = new Map<string, SoakReceiver['receipts']>();
  for (const r of receivers) for (const x of r.receipts) receipts.set(x.deliveryId, [...(receipts.get(x.deliveryId) ?? []), x]);

  let missingRow = 0;
  let notDelivered = 0;
  let notReceived = 0;
  let badSignature = 0;
  let inconsistent = 0;
  let wrongEndpoint = 0;
  for (const e of expected) {
    if (!e.delivery_id) {
      missingRow++;
      continue;
    }
    if (e.status !== 'delivered') notDelivered++;
    const got = receipts.get(e.delivery_id) ?? [];
    if (!got.some((x) => x.answered >= 200 && x.answered < 300)) notReceived++;
    if (!byUrl.get(e.url)?.receipts.some((x) => x.deliveryId === e.delivery_id)) wrongEndpoint++;
    const secret = secrets.get(e.subscription_id)!;
    for (const x of got) {
      if (x.signature !== `sha256=${createHmac('sha256', secret).update(x.body).digest('hex')}`) badSignature++;
      const body = JSON.parse(x.body.toString('utf8'));
      if (!x.body.equals(got[0].body) || body.webhook_id !== e.delivery_id || body.event !== e.type || x.event !== e.type) inconsistent++;
    }
  }
  const all = receivers.flatMap((r) => r.receipts);
  const ids = new Set(all.map((x) => x.deliveryId));
  const known = new Set(expected.map((e) => e.delivery_id));
  const unexpected = [...ids].filter((id) => !known.has(id)).length;
  const twiceOk = [...receipts.values()].filter((xs) => xs.filter((x) => x.answered >= 200 && x.answered < 300).length > 1).length;
  return [
    {
      name: 'events × matching subscriptions',
      value: `${expected.length} expected deliveries (${new Set(expected.map((e) => e.event_id)).size} events)`,
      ok: expected.length > 0,
    },
    { name: 'every pair has a delivery row', value: `${missingRow} missing`, ok: missingRow === 0 },
    { name: 'every delivery delivered', value: `${notDelivered} not delivered`, ok: notDelivered === 0 },
    {
      name: 'every delivery received (2xx) at its endpoint',
      value: `${notReceived} never received, ${wrongEndpoint} at wrong endpoint`,
      ok: notReceived === 0 && wrongEndpoint === 0,
    },
    {
      name: 'same webhook_id and bytes across retries',
      value: `${all.length} receipts of ${ids.size} ids (${all.length - ids.size} retries), ${inconsistent} inconsistent`,
      ok: inconsistent === 0,
    },
    { name: 'signatures valid', value: `${badSignature} invalid`, ok: badSignature === 0 },
    { name: 'no delivery for a non-matching subscription', value: `${unexpected} unexpected ids`, ok: unexpected === 0 },
    { name: 'accepted twice (timeout after 2xx, at-least-once)', value: `${twiceOk} ids`, ok: true },
  ];
}

/** Every write the API acknowledged (2xx) is in PostgreSQL, whatever failed around it. */
export async function acknowledgedChecks(db: DataSource, acknowledged: Stats['acknowledged']): Promise<Check[]> {
  const [found] = await db.query(
    `SELECT (SELECT count(*) FROM users WHERE id = ANY ($1::int[]))::int AS users,
            (SELECT count(*) FROM credit_transactions WHERE id = ANY ($2::varchar[]))::int AS transactions,
            (SELECT count(*) FROM enrollments WHERE id = ANY ($3::int[]))::int AS enrollments,
            (SELECT count(*) FROM webinars WHERE id = ANY ($4::varchar[]))::int AS webinars`,
    [acknowledged.users, acknowledged.transactions, acknowledged.enrollments, acknowledged.webinars],
  );
  const parts = (['users', 'transactions', 'enrollments', 'webinars'] as const).map((k) => ({
    k,
    sent: new Set<unknown>(acknowledged[k]).size,
    found: found[k] as number,
  }));
  const missing = parts.reduce((n, p) => n + p.sent - p.found, 0);
  return [
    { name: 'every acknowledged write present', value: `${parts.map((p) => `${p.found}/${p.sent} ${p.k}`).join(', ')}; ${missing} missing`, ok: missing === 0 },
  ];
}
