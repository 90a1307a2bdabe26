import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../common/database';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Scope } from '../common/scope';
import { CreditTransaction } from './credit-transaction.entity';

/** A credit_transactions row: id, mode, kind, source, reference: varchar; the ids, amount and balance_after: int; created_at: timestamptz. */
interface LedgerRow {
  id: string;
  user_id: number;
  partner_id: number;
  mode: 'test' | 'live';
  amount: number;
  kind: 'topup' | 'enrollment';
  source: string | null;
  reference: string | null;
  enrollment_id: number | null;
  balance_after: number;
  created_at: Date;
}

export function toLedgerEntity(r: LedgerRow): CreditTransaction {
  return Object.assign(new CreditTransaction(), {
    id: r.id,
    userId: r.user_id,
    partnerId: r.partner_id,
    mode: r.mode,
    amount: r.amount,
    kind: r.kind,
    source: r.source,
    reference: r.reference,
    enrollmentId: r.enrollment_id,
    balanceAfter: r.balance_after,
    createdAt: r.created_at,
  });
}

/**
 * The only writer of balances. Each movement is one statement that changes the balance and appends
 * the ledger row together, so the balance always equals the ledger's sum. Callers pass their transaction's manager.
 */
@Injectable()
export class CreditLedger {
  /** Adds credits (creating the account on first top-up). A reused reference fails with the unique violation. */
  async credit(em: EntityManager, scope: Scope, entry: { userId: number; amount: number; source: string | null; reference: string | null }): Promise<CreditTransaction> {
    const rows = await sql<LedgerRow>(
      em,
      `WITH acc AS (
         INSERT INTO credit_accounts (user_id, partner_id, mode, balance) VALUES ($2, $3, $4, $1)
         ON CONFLICT (user_id) DO UPDATE SET balance = credit_accounts.balance + EXCLUDED.balance, updated_at = now()
         RETURNING balance)
       INSERT INTO credit_transactions (id, user_id, partner_id, mode, amount, kind, source, reference, balance_after)
       SELECT $5, $2, $3, $4, $1, 'topup', $6, $7, acc.balance FROM acc
       RETURNING *`,
      [entry.amount, entry.userId, scope.partnerId, scope.mode, newId('txn'), entry.source, entry.reference],
    );
    return toLedgerEntity(rows[0]);
  }

  /**
   * Debits an enrolment's cost with a conditional update (never read-then-write), so parallel debits
   * can never overspend. Throws 402 insufficient_credits when the balance is below `amount`.
   */
  async debitForEnrollment(em: EntityManager, scope: Scope, userId: number, amount: number, enrollmentId: number): Promise<number> {
    // balance_after: int (the statement is an INSERT, so TypeORM answers plain rows)
    const rows = await sql<{ balance_after: number }>(
      em,
      `WITH acc AS (
         UPDATE credit_accounts SET balance = balance - $1, updated_at = now()
          WHERE user_id = $2 AND partner_id = $3 AND mode = $4 AND balance >= $1
         RETURNING balance)
       INSERT INTO credit_transactions (id, user_id, partner_id, mode, amount, kind, enrollment_id, balance_after)
       SELECT $5, $2, $3, $4, -$1::int, 'enrollment', $6, acc.balance FROM acc
       RETURNING balance_after`,
      [amount, userId, scope.partnerId, scope.mode, newId('txn'), enrollmentId],
    );
    if (rows.length) return rows[0].balance_after;
    throw new DomainError('insufficient_credits', { required: amount, available: await this.balanceOf(em, scope, userId) });
  }

  /** Current balance; 0 for a user who never had credits. */
  async balanceOf(em: EntityManager, scope: Scope, userId: number): Promise<number> {
    // balance: int
    const rows = await sql<{ balance: number }>(
      em,
      `SELECT balance FROM credit_accounts WHERE user_id = $1 AND partner_id = $2 AND mode = $3`,
      [userId, scope.partnerId, scope.mode],
    );
    return rows[0]?.balance ?? 0;
  }
}
