import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors';
import { offsetOf, PageQuery, pageOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { CreditLedger } from './credit-ledger';
import { type CreditTransaction, CreditsRepository, isReferenceTaken } from './credits.repository';
import { toCreditTransaction, toTopUpResult } from './credit.mapper';
import { BalanceDto, CreditTransactionListDto, TopUpDto, TopUpResultDto } from './dto/credits.dto';

export interface TopUpOutcome {
  /** False when the reference was already used for this same top-up: the original is returned, nothing credited. */
  created: boolean;
  result: TopUpResultDto;
}

@Injectable()
export class CreditsService {
  constructor(
    private readonly repo: CreditsRepository,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly ledger: CreditLedger,
  ) {}

  async topUp(scope: Scope, dto: TopUpDto): Promise<TopUpOutcome> {
    const user = await this.users.snapshot(scope, dto.user_id);
    const reference = dto.reference ?? null;
    // No look-up of the reference first: a reference used before fails the credit on its unique index, and only then
    // is the earlier top-up read. A first top-up, by far the common case, sends one statement fewer.
    try {
      return await this.tx.run(async (tx) => {
        const txn = await this.ledger.credit(tx.em, scope, { userId: user.id, amount: dto.amount, source: dto.source ?? null, reference });
        await tx.record(
          scope,
          'credits.purchased',
          {
            transaction_id: txn.id,
            user_id: user.id,
            external_user_id: user.externalUserId,
            amount: txn.amount,
            payment_reference: txn.reference,
            source: txn.source,
            credits: txn.balanceAfter,
            purchased_at: txn.createdAt.toISOString(),
          },
          txn.createdAt,
        );
        return { created: true, result: toTopUpResult(txn) };
      });
    } catch (e) {
      // The reference was used already (earlier, or by a parallel request that committed first): our whole
      // transaction rolled back, nothing was credited.
      if (reference !== null && isReferenceTaken(e)) {
        const earlier = await this.byReference(scope, reference);
        if (earlier) return this.sameTopUp(earlier, dto);
      }
      throw e;
    }
  }

  async balance(scope: Scope, userId: number): Promise<BalanceDto> {
    const user = await this.users.snapshot(scope, userId);
    return { user_id: user.id, credits: await this.repo.balanceOf(scope, user.id) };
  }

  async transactions(scope: Scope, userId: number, query: PageQuery): Promise<CreditTransactionListDto> {
    const user = await this.users.snapshot(scope, userId);
    const [rows, total] = await this.repo.page(scope, user.id, offsetOf(query), query.limit);
    return pageOf('transactions', rows.map(toCreditTransaction), total, query);
  }

  private byReference(scope: Scope, reference: string): Promise<CreditTransaction | null> {
    return this.repo.byReference(scope, reference);
  }

  private sameTopUp(earlier: CreditTransaction, dto: TopUpDto): TopUpOutcome {
    if (earlier.kind !== 'topup' || earlier.userId !== dto.user_id || earlier.amount !== dto.amount) {
      throw new DomainError('reference_conflict', { transaction_id: earlier.id });
    }
    return { created: false, result: toTopUpResult(earlier) };
  }
}
