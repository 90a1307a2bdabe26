import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../common/errors';
import type { Mode, Scope } from '../common/scope';
import type { KeyRecord } from '../api-keys/keys.service';

/** Who is calling: the verified key's record and the scope it acts in; set by the API-key guard, read through @Auth(). */
export interface AuthContext extends Omit<KeyRecord, 'revoked'> {
  /** The partner and mode whose data this request reads and writes. */
  scope: Scope;
}

/** The modes whose records an admin key may act on: a test-mode admin key only test data, a live one both. */
export function adminModes(auth: Pick<AuthContext, 'mode'>): Mode[] {
  return auth.mode === 'live' ? ['test', 'live'] : ['test'];
}

export type AuthedRequest = Request & { auth?: AuthContext };

export function authOf(req: AuthedRequest): AuthContext {
  if (!req.auth) throw new DomainError('missing_api_key');
  return req.auth;
}

/** The calling key's context (partner, mode, role, plan, scope). */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => authOf(ctx.switchToHttp().getRequest()));

/** Just the partner-and-mode scope of the call. */
export const CurrentScope = createParamDecorator((_: unknown, ctx: ExecutionContext): Scope => authOf(ctx.switchToHttp().getRequest()).scope);
