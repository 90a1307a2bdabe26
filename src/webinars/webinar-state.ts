import { DomainError } from '../common/errors';
import type { WebinarStatus } from './webinar.entity';

export const WEBINAR_ID_SHAPE = /^wbn_[0-9A-Za-z]{22}$/;

/** The 409 for an operation the webinar's current state does not allow. */
export function stateConflict(status: WebinarStatus, operation: 'start' | 'end' | 'join' | 'register'): DomainError {
  if (status === 'ended') return new DomainError('webinar_ended', { status });
  if (operation === 'start') return new DomainError('webinar_already_live', { status });
  return new DomainError('webinar_not_live', { status });
}
