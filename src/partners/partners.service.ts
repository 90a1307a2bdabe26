import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '../common/error-message';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { VerificationMailer } from './verification-mailer';
import { KeysService } from '../api-keys/keys.service';
import { AuthContext } from '../auth/auth-context';
import { monthOf, UsageLimiter } from '../auth/usage-limiter';
import { DomainError } from '../common/errors';
import type { Mode } from '../common/scope';
import type { PlanCode } from '../plans/plan';
import { CorsOrigins } from './cors-origins';
import { UpdatePartnerDto } from './dto/partner.dto';
import { type Partner, PartnersRepository } from './partners.repository';
import { toAdminPartnerView, toPartnerView, toPlanView } from './partner.mapper';
import { MAX_INT_ID } from '../common/params';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const OPERATOR = { name: 'Platform operators', email: 'operators@platform.invalid' };

@Injectable()
export class PartnersService {
  constructor(
    private readonly repo: PartnersRepository,
    private readonly keys: KeysService,
    private readonly usage: UsageLimiter,
    private readonly cors: CorsOrigins,
    private readonly mailer: VerificationMailer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private readonly logger = new Logger(PartnersService.name);

  /**
   * Self-service sign-up: a starter partner with a test key usable at once, and a verification link sent to its
   * address (production access waits for it). The mail goes after the commit; a failed send is logged, and the
   * partner can still use the test key.
   */
  async register(input: { name: string; email: string; website?: string }) {
    const token = randomBytes(32).toString('base64url');
    const created = await this.create({ ...input, plan: 'starter', mode: 'test' }, sha256(token));
    const link = `${this.config.publicBaseUrl}/api/partners/verify-email?token=${token}`;
    await this.mailer
      .send(input.email, input.name, link)
      .catch((err: unknown) => this.logger.warn({ err: errorMessage(err) }, 'Sending a verification link failed'));
    return created;
  }

  /**
   * Creates a partner and its first key in one transaction. `verificationHash` is the pending link's (registration);
   * without one the address counts as verified (an operator created the partner with the CLI).
   */
  async create(input: { name: string; email: string; website?: string; plan: PlanCode; mode: Mode }, verificationHash: string | null = null) {
    return this.repo.transaction(async (em) => {
      const partner = await this.repo.insert(em, {
        name: input.name,
        email: input.email,
        website: input.website ?? null,
        planCode: input.plan,
        verificationHash,
      });
      if (!partner) throw new DomainError('email_already_registered', { field: 'email' });
      return { partner: toPartnerView(partner), api_key: await this.keys.issue(em, partner.id, input.mode) };
    });
  }

  /** The verification link's target: marks the address verified (a link works once). */
  async verifyEmail(token: string) {
    const partner = /^[A-Za-z0-9_-]{43}$/.test(token) ? await this.repo.verifyEmail(sha256(token)) : null;
    if (!partner) throw new DomainError('verification_link_invalid');
    return { partner_id: partner.id, email: partner.email, email_verified: true, email_verified_at: partner.emailVerifiedAt!.toISOString() };
  }

  async me(auth: AuthContext) {
    const partner = await this.get(auth.partnerId);
    const calls = await this.usage.used(auth.partnerId, auth.mode);
    const limit = auth.plan.monthlyQuota;
    return {
      ...toPartnerView(partner),
      website: partner.website,
      plan_details: toPlanView(auth.plan),
      mode: auth.mode,
      usage: { month: monthOf(), calls, limit, remaining: limit === null ? null : Math.max(0, limit - calls) },
      allowed_origins: partner.allowedOrigins,
      email_verified: partner.emailVerifiedAt !== null,
      created_at: partner.createdAt.toISOString(),
    };
  }

  async get(partnerId: number): Promise<Partner> {
    // An id past the int column's range is no partner (PostgreSQL would reject it with 22003).
    if (!Number.isInteger(partnerId) || partnerId < 1 || partnerId > MAX_INT_ID) throw new DomainError('partner_not_found');
    const partner = await this.repo.find(partnerId);
    if (!partner) throw new DomainError('partner_not_found');
    return partner;
  }

  async adminView(partnerId: number) {
    const partner = await this.get(partnerId);
    return toAdminPartnerView(partner, await this.keys.list(partnerId));
  }

  async update(partnerId: number, dto: UpdatePartnerDto) {
    const partner = await this.get(partnerId);
    await this.repo.update(partnerId, {
      planCode: dto.plan ?? partner.planCode,
      status: dto.status ?? partner.status,
      allowedOrigins: dto.allowed_origins === undefined ? partner.allowedOrigins : [...new Set(dto.allowed_origins)],
    });
    // Plan, status and origins are read through the key cache: every instance drops it now.
    await Promise.all([this.keys.invalidate(), this.cors.invalidate()]);
    return this.adminView(partnerId);
  }

  /** The operators' own account, which admin keys belong to; created the first time it is needed. */
  operatorPartnerId(): Promise<number> {
    return this.repo.operatorId(OPERATOR);
  }

  async createAdminKey(name: string, mode: Mode = 'live') {
    const partnerId = await this.operatorPartnerId();
    return this.keys.issue(null, partnerId, mode, 'admin', name);
  }
}
