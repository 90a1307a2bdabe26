import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import type { Scope } from '../common/scope';
import { type CreditTransaction, CreditsRepository } from './credits.repository';

/**
 * The only writer of balances, and the credits feature's narrow API for other features (enrolment debits). Callers
 * pass their transaction's manager, so a movement commits or rolls back with the caller's own writes.
 */
@Injectable()
export class CreditLedger {
  constructor(private readonly repo: CreditsRepository) {}

  /** Adds credits (creating the account on first top-up). A reused reference fails with the unique violation. */
  credit(
    em: EntityManager,
    scope: Scope,
    entry: { userId: number; amount: number; source: string | null; reference: string | null },
  ): Promise<CreditTransaction> {
    return this.repo.credit(em, scope, newId('txn'), entry);
  }

  /** Debits an enrolment's cost; parallel debits can never overspend. Throws 402 insufficient_credits when the balance is below `amount`. */
  async debitForEnrollment(em: EntityManager, scope: Scope, userId: number, amount: number, enrollmentId: number): Promise<number> {
    const remaining = await this.repo.debitForEnrollment(em, scope, newId('txn'), userId, amount, enrollmentId);
    if (remaining !== null) return remaining;
    throw new DomainError('insufficient_credits', { required: amount, available: await this.balanceOf(em, scope, userId) });
  }

  /** Current balance; 0 for a user who never had credits. */
  balanceOf(em: EntityManager, scope: Scope, userId: number): Promise<number> {
    return this.repo.balanceOf(scope, userId, em);
  }
}
