import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PlanCode } from '../plans/plan';

export type PartnerStatus = 'active' | 'suspended';

@Entity('partners')
export class Partner {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  website: string | null;

  @Column({ name: 'plan_code', type: 'varchar', length: 20 })
  planCode: PlanCode;

  @Column({ type: 'varchar', length: 20 })
  status: PartnerStatus;

  @Column({ name: 'allowed_origins', type: 'text', array: true, default: () => `'{}'` })
  allowedOrigins: string[];

  /** The platform operators' own account, which admin keys belong to. */
  @Column({ name: 'is_operator', type: 'boolean', default: false })
  isOperator: boolean;

  /** When the partner opened the verification link sent to its address; null until then. */
  @Column({ name: 'email_verified_at', type: 'timestamptz', nullable: true })
  emailVerifiedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
