import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type AccessRequestStatus = 'pending' | 'approved' | 'rejected';

@Entity('production_access_requests')
export class ProductionAccessRequest {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'partner_id', type: 'int' })
  partnerId: number;

  @Column({ name: 'use_case', type: 'text' })
  useCase: string;

  @Column({ type: 'varchar', length: 10 })
  status: AccessRequestStatus;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ name: 'live_key_id', type: 'varchar', length: 40, nullable: true })
  liveKeyId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;
}
