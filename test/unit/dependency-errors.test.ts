import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError, TransactionNotStartedError } from 'typeorm';
import { isDependencyDown, renderError } from '../../src/common/error-response';
import { DomainError } from '../../src/common/errors';

const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('errors of a failing or stuck dependency are 503 service_unavailable, never 500', () => {
  it.each([
    ['pg query read timeout (server frozen)', new QueryFailedError('SELECT 1', [], pgError('Query read timeout'))],
    ['statement_timeout', new QueryFailedError('SELECT 1', [], pgError('canceling statement due to statement timeout', '57014'))],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connection lost mid-query', new QueryFailedError('SELECT 1', [], pgError('Connection terminated unexpectedly'))],
    ['server shutting down', new QueryFailedError('SELECT 1', [], pgError('terminating connection due to administrator command', '57P01'))],
    ['a released query runner (its connection broke)', new QueryRunnerAlreadyReleasedError()],
    // Issue 26, finding 14: TypeORM 1.1's name for a connection released under a transaction (backend terminated).
    ['a released query runner provider (TypeORM 1.1)', new QueryRunnerProviderAlreadyReleasedError()],
    ['crash shutdown', new QueryFailedError('SELECT 1', [], pgError('terminating connection because of crash of another server process', '57P02'))],
    ['server starting up', new QueryFailedError('SELECT 1', [], pgError('the database system is starting up', '57P03'))],
    ['any connection exception (class 08)', new QueryFailedError('SELECT 1', [], pgError('protocol violation', '08P01'))],
    ['too many connections', new QueryFailedError('SELECT 1', [], pgError('sorry, too many clients already', '53300'))],
    [
      'a reset socket under a wrapper',
      Object.assign(new Error('write failed'), { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
    ],
    ['a closed server connection', new Error('server closed the connection unexpectedly')],
    ['a future TypeORM error named for a released connection', Object.assign(new Error('gone'), { name: 'ConnectionAlreadyReleasedError' })],
    ['ioredis command timeout (Redis frozen)', new Error('Command timed out')],
    ['ioredis offline', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })],
  ])('%s', (_, err) => {
    expect(isDependencyDown(err)).toBe(true);
    const rendered = renderError(err, 'req_1');
    expect([rendered.status, rendered.body.error.code, rendered.headers['Retry-After']]).toEqual([503, 'service_unavailable', '1']);
  });

  it('keeps programming errors and refusals as they are', () => {
    expect(isDependencyDown(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyDown(new TransactionNotStartedError())).toBe(false);
    expect(renderError(new QueryFailedError('INSERT', [], pgError('duplicate key value', '23505')), 'r').status).toBe(500);
    expect(renderError(new DomainError('user_not_found'), 'r').status).toBe(404);
  });
});
