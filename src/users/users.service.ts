import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isUniqueViolation } from '../common/database';
import { DomainError } from '../common/errors';
import { pageOf, offsetOf } from '../common/pagination';
import { Scope } from '../common/scope';
import { TransactionRunner, Tx } from '../events/transaction-runner';
import { CreateUserDto, ListUsersQuery, UpsertUserDto, UserDto } from './dto/user.dto';
import { type User, UsersRepository } from './users.repository';
import { MAX_INT_ID } from '../common/params';

export function toUserView(u: User): UserDto {
  return { id: u.id, external_user_id: u.externalUserId, name: u.name, email: u.email, created_at: u.createdAt.toISOString() };
}

/** What other features may know of a learner (certificates, webinars, enrolment, credits): never the entity itself. */
export interface UserSnapshot {
  id: number;
  partnerId: number;
  mode: Scope['mode'];
  externalUserId: string;
  name: string;
  email: string;
}

function snapshotOf(u: User): UserSnapshot {
  return { id: u.id, partnerId: u.partnerId, mode: u.mode, externalUserId: u.externalUserId, name: u.name, email: u.email };
}

@Injectable()
export class UsersService {
  constructor(
    private readonly repo: UsersRepository,
    private readonly tx: TransactionRunner,
  ) {}

  async create(scope: Scope, dto: CreateUserDto): Promise<UserDto> {
    try {
      return await this.tx.run(async (tx) => {
        const user = await this.repo.insert(tx.em, scope, dto.external_user_id, dto.name, dto.email);
        await recordRegistered(tx, scope, toUserView(user));
        return toUserView(user);
      });
    } catch (e) {
      if (isUniqueViolation(e)) {
        const existing = await this.repo.findByExternalId(scope, dto.external_user_id);
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
      const written = await this.repo.upsert(tx.em, scope, externalUserId, dto.name, dto.email);
      if (!written) return { created: false, user: toUserView(await this.getByExternalId(scope, externalUserId, tx.em)) };
      const user = toUserView(written.user);
      if (written.inserted) await recordRegistered(tx, scope, user);
      return { created: written.inserted, user };
    });
  }

  async getByExternalId(scope: Scope, externalUserId: string, em?: EntityManager): Promise<User> {
    const user = await this.repo.findByExternalId(scope, externalUserId, em);
    if (!user) throw new DomainError('user_not_found');
    return user;
  }

  /** Platform ids of the caller's learners with these external ids (those that exist), for callers that batch. */
  idsByExternalId(scope: Scope, externalUserIds: string[]): Promise<Map<string, number>> {
    return this.repo.idsByExternalId(scope, externalUserIds);
  }

  async get(scope: Scope, id: number, em?: EntityManager): Promise<User> {
    const user = id >= 1 && id <= MAX_INT_ID ? await this.repo.findById(scope, id, em) : null;
    if (!user) throw new DomainError('user_not_found');
    return user;
  }

  /** The caller's learner as other features see it; user_not_found for anyone else's. */
  async snapshot(scope: Scope, id: number, em?: EntityManager): Promise<UserSnapshot> {
    return snapshotOf(await this.get(scope, id, em));
  }

  /** The caller's learners with these ids (those that exist), by id: one query for a page of attendees. */
  async snapshots(scope: Scope, ids: number[]): Promise<Map<number, UserSnapshot>> {
    const users = await this.repo.findManyById(scope, ids);
    return new Map(users.map((u) => [u.id, snapshotOf(u)]));
  }

  /**
   * A learner by the global id whatever partner and mode own it (the snapshot says which), or null: for an admin
   * call without X-Partner-Id and for hooks, which carry no scope.
   */
  async snapshotAnyScope(id: number, em?: EntityManager): Promise<UserSnapshot | null> {
    const user = id >= 1 && id <= MAX_INT_ID ? await this.repo.findAnyById(id, em) : null;
    return user && snapshotOf(user);
  }

  /**
   * Finds the caller's user by user_id and/or external_user_id (both must name the same user).
   * Never creates one: an unknown user is 404.
   */
  async resolve(scope: Scope, ref: { user_id?: number; external_user_id?: string }, em?: EntityManager): Promise<UserSnapshot> {
    // @IsOptional() lets null through: null means absent here.
    if (ref.user_id == null && ref.external_user_id == null) {
      throw new DomainError('validation_failed', [{ field: 'user_id', message: 'user_id or external_user_id is required' }]);
    }
    const user = ref.user_id != null ? await this.repo.findById(scope, ref.user_id, em) : await this.repo.findByExternalId(scope, ref.external_user_id!, em);
    if (!user) throw new DomainError('user_not_found');
    if (ref.user_id != null && ref.external_user_id != null && user.externalUserId !== ref.external_user_id) {
      throw new DomainError('validation_failed', [{ field: 'external_user_id', message: 'user_id and external_user_id name different users' }]);
    }
    return snapshotOf(user);
  }

  async list(scope: Scope, query: ListUsersQuery) {
    const [users, total] = await this.repo.page(scope, offsetOf(query), query.limit, query.external_user_id);
    return pageOf('users', users.map(toUserView), total, query);
  }
}

function recordRegistered(tx: Tx, scope: Scope, user: UserDto): Promise<unknown> {
  const registeredAt = new Date(user.created_at);
  return tx.record(
    scope,
    'user.registered',
    { user_id: user.id, external_user_id: user.external_user_id, name: user.name, email: user.email, registered_at: user.created_at },
    registeredAt,
  );
}
