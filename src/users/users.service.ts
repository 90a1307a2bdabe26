import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope, scoped } from '../common/scope';
import { TransactionRunner, Tx } from '../events/transaction-runner';
import { CreateUserDto, ListUsersQuery, UpsertUserDto, UserDto } from './dto/user.dto';
import { User } from './user.entity';
import { isUniqueViolation, sql } from '../common/database';

export function toUserView(u: User): UserDto {
  return { id: u.id, external_user_id: u.externalUserId, name: u.name, email: u.email, created_at: u.createdAt.toISOString() };
}

/** id: serial; external_user_id, name, email: varchar; created_at: timestamptz; inserted: bool (xmax = 0). */
interface UserRow {
  id: number;
  external_user_id: string;
  name: string;
  email: string;
  created_at: Date;
  inserted: boolean;
}

@Injectable()
export class UsersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
  ) {}

  async create(scope: Scope, dto: CreateUserDto): Promise<UserDto> {
    try {
      return await this.tx.run(async (tx) => {
        const user = await tx.em.save(tx.scoped(scope).create(User, { externalUserId: dto.external_user_id, name: dto.name, email: dto.email }));
        await recordRegistered(tx, scope, toUserView(user));
        return toUserView(user);
      });
    } catch (e) {
      if (isUniqueViolation(e)) {
        const existing = await scoped(this.dataSource.manager, scope).findOne(User, { externalUserId: dto.external_user_id });
        throw new DomainError('external_user_id_taken', { user_id: existing?.id });
      }
      throw e;
    }
  }

  /**
   * PUT by the partner's own id: one statement that inserts, updates a changed name or email, or leaves the row
   * alone. The unique (partner, mode, external_user_id) constraint settles concurrent PUTs of one id: one insert
   * (and one user.registered), the others update or find it unchanged.
   */
  async upsertByExternalId(scope: Scope, externalUserId: string, dto: UpsertUserDto): Promise<{ created: boolean; user: UserDto }> {
    return this.tx.run(async (tx) => {
      const rows = await sql<UserRow>(
        tx.em,
        `INSERT INTO users (partner_id, mode, external_user_id, name, email) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (partner_id, mode, external_user_id)
           DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email
           WHERE (users.name, users.email) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.email)
         RETURNING id, external_user_id, name, email, created_at, (xmax = 0) AS inserted`,
        [scope.partnerId, scope.mode, externalUserId, dto.name, dto.email],
      );
      if (!rows.length) return { created: false, user: toUserView(await this.getByExternalId(scope, externalUserId, tx.em)) };
      const row = rows[0];
      const user: UserDto = { id: row.id, external_user_id: row.external_user_id, name: row.name, email: row.email, created_at: row.created_at.toISOString() };
      if (row.inserted) await recordRegistered(tx, scope, user);
      return { created: row.inserted, user };
    });
  }

  async getByExternalId(scope: Scope, externalUserId: string, em: EntityManager = this.dataSource.manager): Promise<User> {
    const user = await scoped(em, scope).findOne(User, { externalUserId });
    if (!user) throw new DomainError('user_not_found');
    return user;
  }

  /** Platform ids of the caller's learners with these external ids (those that exist), for callers that batch. */
  async idsByExternalId(scope: Scope, externalUserIds: string[]): Promise<Map<string, number>> {
    if (!externalUserIds.length) return new Map();
    const users = await scoped(this.dataSource.manager, scope)
      .query(User, 'u')
      .select(['u.id', 'u.externalUserId'])
      .andWhere('u.external_user_id IN (:...ext)', { ext: [...new Set(externalUserIds)] })
      .getMany();
    return new Map(users.map((u) => [u.externalUserId, u.id]));
  }

  async get(scope: Scope, id: number, em: EntityManager = this.dataSource.manager): Promise<User> {
    const user = id >= 1 && id <= 2_147_483_647 ? await scoped(em, scope).findOne(User, { id }) : null;
    if (!user) throw new DomainError('user_not_found');
    return user;
  }

  /**
   * Finds the caller's user by user_id and/or external_user_id (both must name the same user).
   * Never creates one: an unknown user is 404.
   */
  async resolve(scope: Scope, ref: { user_id?: number; external_user_id?: string }, em: EntityManager = this.dataSource.manager): Promise<User> {
    // @IsOptional() lets null through: null means absent here (TypeORM refuses a null in a where).
    if (ref.user_id == null && ref.external_user_id == null) {
      throw new DomainError('validation_failed', [{ field: 'user_id', message: 'user_id or external_user_id is required' }]);
    }
    const where = ref.user_id != null ? { id: ref.user_id } : { externalUserId: ref.external_user_id! };
    const user = await scoped(em, scope).findOne(User, where);
    if (!user) throw new DomainError('user_not_found');
    if (ref.user_id != null && ref.external_user_id != null && user.externalUserId !== ref.external_user_id) {
      throw new DomainError('validation_failed', [{ field: 'external_user_id', message: 'user_id and external_user_id name different users' }]);
    }
    return user;
  }

  async list(scope: Scope, query: ListUsersQuery) {
    const qb = scoped(this.dataSource.manager, scope).query(User, 'u').orderBy('u.id', 'ASC').offset(offsetOf(query)).limit(query.limit);
    if (query.external_user_id !== undefined) qb.andWhere('u.external_user_id = :ext', { ext: query.external_user_id });
    const [users, total] = await qb.getManyAndCount();
    return pageOf('users', users.map(toUserView), total, query);
  }
}

function recordRegistered(tx: Tx, scope: Scope, user: UserDto): Promise<unknown> {
  const registeredAt = new Date(user.created_at);
  return tx.record(scope, 'user.registered', { user_id: user.id, external_user_id: user.external_user_id, name: user.name, email: user.email, registered_at: user.created_at }, registeredAt);
}
