import type { DataSource } from 'typeorm';
import { unique } from '../support/factories';
import type { HttpClient } from '../support/http';

export interface Learner {
  id: number;
  external_user_id: string;
  name: string;
  email: string;
}

export async function createLearner(api: HttpClient, name = 'Ada Lovelace'): Promise<Learner> {
  const ext = unique('learner');
  const res = await api.post('/api/users', { external_user_id: ext, name, email: `${ext}@example.com` });
  if (res.status !== 201) throw new Error(`user creation failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function topUp(api: HttpClient, userId: number, amount: number): Promise<void> {
  const res = await api.post('/api/credits/topup', { user_id: userId, amount });
  if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${res.text}`);
}

export async function eventsOf(
  db: DataSource,
  partnerId: number,
  type: string,
): Promise<Array<{ payload: Record<string, unknown>; mode: string; occurred_at: Date }>> {
  return db.query(`SELECT payload, mode, occurred_at FROM events WHERE partner_id = $1 AND type = $2 ORDER BY occurred_at, id`, [partnerId, type]);
}

export async function ledgerOf(db: DataSource, userId: number): Promise<{ balance: number; sum: number; rows: number }> {
  const [row] = await db.query(
    `SELECT coalesce((SELECT balance FROM credit_accounts WHERE user_id = $1), 0)::int AS balance,
            coalesce((SELECT sum(amount) FROM credit_transactions WHERE user_id = $1), 0)::int AS sum,
            (SELECT count(*) FROM credit_transactions WHERE user_id = $1)::int AS rows`,
    [userId],
  );
  return row;
}

export function countBy<T>(items: T[], key: (t: T) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}
