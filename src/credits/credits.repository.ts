import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUniqueViolation, prepared, Queryable, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';
import type { CreditTransactionKind } from './credit-transaction.entity';

/** A ledger entry; `amount` is signed. */
export interface CreditTransaction {
  id: string;
  partnerId: number;
  mode: Mode;
  userId: number;
  amount: number;
  kind: CreditTransactionKind;
  source: string | null;
  reference: string | null;
  enrollmentId: number | null;
  balanceAfter: number;
  createdAt: Date;
}

/** A credit_transactions row as the statements below select it. */
interface LedgerRow {
  id: string;
  user_id: number;
  partner_id: number;
  mode: Mode;
  amount: number;
  kind: CreditTransactionKind;
  source: string | null;
  reference: string | null;
  enrollment_id: number | null;
  balance_after: number;
  created_at: Date;
}

const COLUMNS = 'id, user_id, partner_id, mode, amount, kind, source, reference, enrollment_id, balance_after, created_at';

function toTransaction(r: LedgerRow): CreditTransaction {
  return {
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
  };
}

const REFERENCE_UNIQUE = 'credit_transactions_reference_uq';

/** A top-up: the balance (the account created on the first) and its ledger row together. */
const CREDIT = prepared(
  `WITH acc AS (
     INSERT INTO credit_accounts (partner_id, mode, user_id, balance) VALUES ($1, $2, $4, $3)
     ON CONFLICT (user_id) DO UPDATE SET balance = credit_accounts.balance + EXCLUDED.balance, updated_at = now()
     RETURNING balance)
   INSERT INTO credit_transactions (partner_id, mode, id, user_id, amount, kind, source, reference, balance_after)
   SELECT $1, $2, $5, $4, $3, 'topup', $6, $7, acc.balance FROM acc
   RETURNING ${COLUMNS}`,
);

/** An enrolment's debit: a conditional update and its ledger row together (nothing when the balance is short). */
const DEBIT_FOR_ENROLLMENT = prepared(
  `WITH acc AS (
     UPDATE credit_accounts SET balance = balance - $3, updated_at = now()
      WHERE ${inScope()} AND user_id = $4 AND balance >= $3
     RETURNING balance)
   INSERT INTO credit_transactions (partner_id, mode, id, user_id, amount, kind, enrollment_id, balance_after)
   SELECT $1, $2, $5, $4, -$3::int, 'enrollment', $6, acc.balance FROM acc
   RETURNING balance_after`,
);

/** True when a top-up failed because its payment reference was used already (by a parallel request, say). */
export function isReferenceTaken(e: unknown): boolean {
  return isUniqueViolation(e, REFERENCE_UNIQUE);
}

/**
 * Every query of the credits feature. Each balance movement is one statement that changes the balance and appends
 * the ledger row together, so the balance always equals the ledger's sum.
 */
@Injectable()
export class CreditsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Adds credits (creating the account on first top-up). A reused reference fails with the unique violation. */
  async credit(
    db: Queryable,
    scope: Scope,
    id: string,
    entry: { userId: number; amount: number; source: string | null; reference: string | null },
  ): Promise<CreditTransaction> {
    const [row] = await sql<LedgerRow>(db, CREDIT, scopeParams(scope, entry.amount, entry.userId, id, entry.source, entry.reference));
    return toTransaction(row);
  }

  /**
   * Debits with a conditional update (never read-then-write), so parallel debits can never overspend. The balance
   * after the debit, or null when the balance is below `amount`.
   */
  async debitForEnrollment(db: Queryable, scope: Scope, id: string, userId: number, amount: number, enrollmentId: number): Promise<number | null> {
    // The statement is an INSERT, so TypeORM answers plain rows (sqlOne, not returning).
    const row = await sqlOne<{ balance_after: number }>(db, DEBIT_FOR_ENROLLMENT, scopeParams(scope, amount, userId, id, enrollmentId));
    return row?.balance_after ?? null;
  }

  /** Current balance; 0 for a user who never had credits. */
  async balanceOf(scope: Scope, userId: number, db: Queryable = this.dataSource): Promise<number> {
    const row = await sqlOne<{ balance: number }>(db, `SELECT balance FROM credit_accounts WHERE ${inScope()} AND user_id = $3`, scopeParams(scope, userId));
    return row?.balance ?? 0;
  }

  async byReference(scope: Scope, reference: string): Promise<CreditTransaction | null> {
    const row = await sqlOne<LedgerRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM credit_transactions WHERE ${inScope()} AND reference = $3`,
      scopeParams(scope, reference),
    );
    return row && toTransaction(row);
  }

  /** A learner's ledger, newest first, with the total. */
  async page(scope: Scope, userId: number, offset: number, limit: number): Promise<[CreditTransaction[], number]> {
    const params = scopeParams(scope, userId);
    const where = `${inScope()} AND user_id = $3`;
    // count(*) is a bigint, which the driver answers as a string
    const [rows, counted] = await Promise.all([
      sql<LedgerRow>(this.dataSource, `SELECT ${COLUMNS} FROM credit_transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, [
        ...params,
        limit,
        offset,
      ]),
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM credit_transactions WHERE ${where}`, params),
    ]);
    return [rows.map(toTransaction), Number(counted!.total)];
  }
}
