import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

/** One user's credit balance: always the sum of their ledger rows, never negative (database CHECK). */
@Entity('credit_accounts')
export class CreditAccount extends PartnerOwned {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'int' })
  balance: number;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
