import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { PartnerOwned } from '../common/scope';

/** A learner of one partner in one mode. */
@Entity('users')
export class User extends PartnerOwned {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'external_user_id', type: 'varchar', length: 128 })
  externalUserId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 320 })
  email: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
