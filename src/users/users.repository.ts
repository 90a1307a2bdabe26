import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { prepared, Queryable, sql, sqlOne } from '../common/database';
import { inScope, Mode, Scope, scopeParams } from '../common/scope';

/** A learner of one partner in one mode. */
export interface User {
  id: number;
  partnerId: number;
  mode: Mode;
  externalUserId: string;
  name: string;
  email: string;
  createdAt: Date;
}

/** A users row as the statements below select it. */
interface UserRow {
  id: number;
  partner_id: number;
  mode: Mode;
  external_user_id: string;
  name: string;
  email: string;
  created_at: Date;
}

const COLUMNS = 'id, partner_id, mode, external_user_id, name, email, created_at';

/** Every enrolment and top-up reads its learner by id. */
const BY_ID = prepared(`SELECT ${COLUMNS} FROM users WHERE ${inScope()} AND id = $3`);

function toUser(r: UserRow): User {
  return {
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    externalUserId: r.external_user_id,
    name: r.name,
    email: r.email,
    createdAt: r.created_at,
  };
}

/** Every query of the users feature. Partner-triggered reads filter on partner_id and mode here. */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, scope: Scope, externalUserId: string, name: string, email: string): Promise<User> {
    const [row] = await sql<UserRow>(
      em,
      `INSERT INTO users (partner_id, mode, external_user_id, name, email) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      scopeParams(scope, externalUserId, name, email),
    );
    return toUser(row);
  }

  /**
   * Inserts, updates a changed name or email, or leaves the row alone (then no row comes back); `inserted` is
   * PostgreSQL's xmax = 0 of the written row.
   */
  async upsert(em: EntityManager, scope: Scope, externalUserId: string, name: string, email: string): Promise<{ user: User; inserted: boolean } | null> {
    const row = await sqlOne<UserRow & { inserted: boolean }>(
      em,
      `INSERT INTO users (partner_id, mode, external_user_id, name, email) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (partner_id, mode, external_user_id)
         DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email
         WHERE (users.name, users.email) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.email)
       RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
      scopeParams(scope, externalUserId, name, email),
    );
    return row ? { user: toUser(row), inserted: row.inserted } : null;
  }

  async findById(scope: Scope, id: number, db: Queryable = this.dataSource): Promise<User | null> {
    const row = await sqlOne<UserRow>(db, BY_ID, scopeParams(scope, id));
    return row && toUser(row);
  }

  async findByExternalId(scope: Scope, externalUserId: string, db: Queryable = this.dataSource): Promise<User | null> {
    const row = await sqlOne<UserRow>(db, `SELECT ${COLUMNS} FROM users WHERE ${inScope()} AND external_user_id = $3`, scopeParams(scope, externalUserId));
    return row && toUser(row);
  }

  /** A user by the global id, whoever owns it: for callers that learn the scope from the user (admin calls, hooks). */
  async findAnyById(id: number, db: Queryable = this.dataSource): Promise<User | null> {
    const row = await sqlOne<UserRow>(db, `SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
    return row && toUser(row);
  }

  async findManyById(scope: Scope, ids: number[]): Promise<User[]> {
    if (!ids.length) return [];
    const rows = await sql<UserRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM users WHERE ${inScope()} AND id = ANY($3::int[])`,
      scopeParams(scope, [...new Set(ids)]),
    );
    return rows.map(toUser);
  }

  async idsByExternalId(scope: Scope, externalUserIds: string[]): Promise<Map<string, number>> {
    if (!externalUserIds.length) return new Map();
    const rows = await sql<{ id: number; external_user_id: string }>(
      this.dataSource,
      `SELECT id, external_user_id FROM users WHERE ${inScope()} AND external_user_id = ANY($3::varchar[])`,
      scopeParams(scope, [...new Set(externalUserIds)]),
    );
    return new Map(rows.map((r) => [r.external_user_id, r.id]));
  }

  /** The caller's users by id, optionally only the one with this external id, with the total count. */
  async page(scope: Scope, offset: number, limit: number, externalUserId?: string): Promise<[User[], number]> {
    const params = scopeParams(scope);
    let where = inScope();
    if (externalUserId !== undefined) {
      params.push(externalUserId);
      where += ` AND external_user_id = $${params.length}`;
    }
    // count(*) is a bigint, which the driver answers as a string.
    const [rows, counted] = await Promise.all([
      sql<UserRow>(this.dataSource, `SELECT ${COLUMNS} FROM users WHERE ${where} ORDER BY id ASC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
        ...params,
        limit,
        offset,
      ]),
      sqlOne<{ total: string }>(this.dataSource, `SELECT count(*) AS total FROM users WHERE ${where}`, params),
    ]);
    return [rows.map(toUser), Number(counted!.total)];
  }
}
