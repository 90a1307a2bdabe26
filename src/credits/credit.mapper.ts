import type { CreditTransaction } from './credits.repository';
import { CreditTransactionDto, TopUpResultDto } from './dto/credits.dto';

export function toTopUpResult(t: CreditTransaction): TopUpResultDto {
  return {
    transaction_id: t.id,
    user_id: t.userId,
    amount: t.amount,
    credits: t.balanceAfter,
    source: t.source,
    reference: t.reference,
    created_at: t.createdAt.toISOString(),
  };
}

export function toCreditTransaction(t: CreditTransaction): CreditTransactionDto {
  return {
    transaction_id: t.id,
    user_id: t.userId,
    amount: t.amount,
    kind: t.kind,
    source: t.source,
    reference: t.reference,
    enrollment_id: t.enrollmentId,
    balance_after: t.balanceAfter,
    created_at: t.createdAt.toISOString(),
  };
}
