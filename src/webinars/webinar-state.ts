import { DomainError } from '../common/errors';
import { prefixedIdShape } from '../common/params';
import type { WebinarStatus } from './webinar.entity';

/** For ids a route could not refuse with prefixedIdParam: the join page's `wbn` query, routes that validate a body or query first. */
export const WEBINAR_ID_SHAPE = prefixedIdShape('wbn', 22);

/** The 409 for an operation the webinar's current state does not allow. */
export function stateConflict(status: WebinarStatus, operation: 'start' | 'end' | 'join' | 'register'): DomainError {
  if (status === 'ended') return new DomainError('webinar_ended', { status });
  if (operation === 'start') return new DomainError('webinar_already_live', { status });
  return new DomainError('webinar_not_live', { status });
}
