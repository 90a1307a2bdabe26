import { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors';
import type { WebinarStatus } from './webinar.entity';

export const WEBINAR_ID_SHAPE = /^wbn_[0-9A-Za-z]{22}$/;

/** Rows of an UPDATE … RETURNING (TypeORM's postgres driver answers [rows, count] for UPDATE). */
export async function returning<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result = await em.query(sql, params);
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T[];
}

/** The 409 for an operation the webinar's current state does not allow. */
export function stateConflict(status: WebinarStatus, operation: 'start' | 'end' | 'join' | 'register'): DomainError {
  if (status === 'ended') return new DomainError('webinar_ended', { status });
  if (operation === 'start') return new DomainError('webinar_already_live', { status });
  return new DomainError('webinar_not_live', { status });
}

export async function currentStatus(em: EntityManager, webinarId: string): Promise<WebinarStatus> {
  const [row] = await em.query(`SELECT status FROM webinars WHERE id = $1`, [webinarId]);
  return row.status;
}
