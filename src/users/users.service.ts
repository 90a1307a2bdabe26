import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors';
import { offsetOf, pageOf } from '../common/pagination';
import { Scope, scoped } from '../common/scope';
import { TransactionRunner } from '../events/transaction-runner';
import { CreateUserDto, ListUsersQuery, UserDto } from './dto/user.dto';
import { User } from './user.entity';

const UNIQUE_VIOLATION = '23505';

export function toUserView(u: User): UserDto {
  return { id: u.id, external_user_id: u.externalUserId, name: u.name, email: u.email, created_at: u.createdAt.toISOString() };
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
        await tx.record(scope, 'user.registered', {
          user_id: user.id,
          external_user_id: user.externalUserId,
          name: user.name,
          email: user.email,
          registered_at: user.createdAt.toISOString(),
        }, user.createdAt);
        return toUserView(user);
      });
    } catch (e) {
      if ((e as { code?: string; constraint?: string }).code === UNIQUE_VIOLATION) {
        const existing = await scoped(this.dataSource.manager, scope).findOne(User, { externalUserId: dto.external_user_id });
        throw new DomainError('external_user_id_taken', { user_id: existing?.id });
      }
      throw e;
    }
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
