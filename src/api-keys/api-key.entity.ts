import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../common/scope';

export type KeyRole = 'partner' | 'admin';

/** An API key: only its SHA-256 is stored; the raw key is shown once, at creation. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'partner_id', type: 'int' })
  partnerId: number;

  @Column({ type: 'varchar', length: 4 })
  mode: Mode;

  @Column({ type: 'varchar', length: 10 })
  role: KeyRole;

  @Column({ type: 'varchar', length: 200, nullable: true })
  name: string | null;

  @Column({ name: 'key_prefix', type: 'varchar', length: 14 })
  keyPrefix: string;

  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
