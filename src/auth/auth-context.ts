import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../common/errors';
import type { Mode, Scope } from '../common/scope';
import type { PartnerStatus } from '../partners/partner.entity';
import type { Plan } from '../partners/plan.entity';
import type { KeyRole } from './api-key.entity';

/** Who is calling: set by the API-key guard on every keyed request, read by handlers through @Auth(). */
export interface AuthContext {
  keyId: string;
  partnerId: number;
  partnerName: string;
  partnerStatus: PartnerStatus;
  allowedOrigins: string[];
  mode: Mode;
  role: KeyRole;
  plan: Plan;
  /** The partner and mode whose data this request reads and writes. */
  scope: Scope;
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
