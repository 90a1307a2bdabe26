import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, PageQuery, pageOf } from '../common/pagination';
import { Scope, scoped } from '../common/scope';
import { TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { CreditLedger } from './credit-ledger';
import { CreditTransaction } from './credit-transaction.entity';
import { toCreditTransaction, toTopUpResult } from './credit.mapper';
import { BalanceDto, CreditTransactionListDto, TopUpDto, TopUpResultDto } from './dto/credits.dto';

const REFERENCE_UNIQUE = 'credit_transactions_reference_uq';

export interface TopUpOutcome {
  /** False when the reference was already used for this same top-up: the original is returned, nothing credited. */
  created: boolean;
  result: TopUpResultDto;
}

@Injectable()
export class CreditsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly ledger: CreditLedger,
  ) {}

  async topUp(scope: Scope, dto: TopUpDto): Promise<TopUpOutcome> {
    const user = await this.users.get(scope, dto.user_id);
    const reference = dto.reference ?? null;
    if (reference !== null) {
      const earlier = await this.byReference(scope, reference);
      if (earlier) return this.sameTopUp(earlier, dto);
    }
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
      // A parallel request with the same reference committed first: our whole transaction rolled back.
      if (reference !== null && (e as { constraint?: string }).constraint === REFERENCE_UNIQUE) {
        const earlier = await this.byReference(scope, reference);
        if (earlier) return this.sameTopUp(earlier, dto);
      }
      throw e;
    }
  }

  async balance(scope: Scope, userId: number): Promise<BalanceDto> {
    const user = await this.users.get(scope, userId);
    return { user_id: user.id, credits: await this.ledger.balanceOf(this.dataSource.manager, scope, user.id) };
  }

  async transactions(scope: Scope, userId: number, query: PageQuery): Promise<CreditTransactionListDto> {
    const user = await this.users.get(scope, userId);
    const [rows, total] = await scoped(this.dataSource.manager, scope)
      .query(CreditTransaction, 't')
      .andWhere('t.user_id = :userId', { userId: user.id })
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .offset(offsetOf(query))
      .limit(query.limit)
      .getManyAndCount();
    return pageOf('transactions', rows.map(toCreditTransaction), total, query);
  }

  private byReference(scope: Scope, reference: string): Promise<CreditTransaction | null> {
    return scoped(this.dataSource.manager, scope).findOne(CreditTransaction, { reference });
  }

  private sameTopUp(earlier: CreditTransaction, dto: TopUpDto): TopUpOutcome {
    if (earlier.kind !== 'topup' || earlier.userId !== dto.user_id || earlier.amount !== dto.amount) {
      throw new DomainError('reference_conflict', { transaction_id: earlier.id });
    }
    return { created: false, result: toTopUpResult(earlier) };
  }
}
