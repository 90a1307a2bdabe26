import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

export type CreditTransactionKind = 'topup' | 'enrollment';

/** An append-only ledger row (a database trigger refuses UPDATE and DELETE). `amount` is signed. */
@Entity('credit_transactions')
export class CreditTransaction extends PartnerOwned {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'int' })
  amount: number;

  @Column({ type: 'varchar', length: 12 })
  kind: CreditTransactionKind;

  @Column({ type: 'varchar', length: 100, nullable: true })
  source: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  reference: string | null;

  @Column({ name: 'enrollment_id', type: 'int', nullable: true })
  enrollmentId: number | null;

  @Column({ name: 'balance_after', type: 'int' })
  balanceAfter: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
