import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { KeyStore } from '../api-keys/key-store';
import { KeysService } from '../api-keys/keys.service';
import { AuthContext } from '../auth/auth-context';
import { monthOf, UsageLimiter } from '../auth/usage-limiter';
import { sql } from '../common/database';
import { DomainError } from '../common/errors';
import type { Mode } from '../common/scope';
import type { PlanCode } from '../plans/plan';
import { CorsOrigins } from './cors-origins';
import { UpdatePartnerDto } from './dto/partner.dto';
import { Partner } from './partner.entity';
import { toAdminPartnerView, toPartnerView, toPlanView } from './partner.mapper';

const OPERATOR = { name: 'Platform operators', email: 'operators@platform.invalid' };

@Injectable()
export class PartnersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: KeysService,
    private readonly keyStore: KeyStore,
    private readonly usage: UsageLimiter,
    private readonly cors: CorsOrigins,
  ) {}

  /** Self-service sign-up: a starter partner with a test key usable at once. */
  register(input: { name: string; email: string; website?: string }) {
    return this.create({ ...input, plan: 'starter', mode: 'test' });
  }

  /** Creates a partner and its first key in one transaction (registration and the CLI). */
  async create(input: { name: string; email: string; website?: string; plan: PlanCode; mode: Mode }) {
    return this.dataSource.transaction(async (em) => {
      const partner = await em.save(
        em.create(Partner, {
          name: input.name,
          email: input.email,
          website: input.website ?? null,
          planCode: input.plan,
          status: 'active',
          allowedOrigins: [],
        }),
      );
      return { partner: toPartnerView(partner), api_key: await this.keys.issue(em, partner.id, input.mode) };
    });
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
      created_at: partner.createdAt.toISOString(),
    };
  }

  async get(partnerId: number): Promise<Partner> {
    // An id past the int column's range is no partner (PostgreSQL would reject it with 22003).
    if (!Number.isInteger(partnerId) || partnerId < 1 || partnerId > 2_147_483_647) throw new DomainError('partner_not_found');
    const partner = await this.dataSource.getRepository(Partner).findOneBy({ id: partnerId });
    if (!partner) throw new DomainError('partner_not_found');
    return partner;
  }

  async adminView(partnerId: number) {
    const partner = await this.get(partnerId);
    return toAdminPartnerView(partner, await this.keys.list(partnerId));
  }

  async update(partnerId: number, dto: UpdatePartnerDto) {
    const partner = await this.get(partnerId);
    if (dto.plan !== undefined) partner.planCode = dto.plan;
    if (dto.status !== undefined) partner.status = dto.status;
    if (dto.allowed_origins !== undefined) partner.allowedOrigins = [...new Set(dto.allowed_origins)];
    await this.dataSource.getRepository(Partner).save(partner);
    // Plan, status and origins are read through the key cache: every instance drops it now.
    await Promise.all([this.keyStore.invalidate(), this.cors.invalidate()]);
    return this.adminView(partnerId);
  }

  /** The operators' own account, which admin keys belong to; created the first time it is needed. */
  async operatorPartnerId(): Promise<number> {
    await this.dataSource.query(
      `INSERT INTO partners (name, email, plan_code, status, is_operator) VALUES ($1, $2, 'enterprise', 'active', true)
       ON CONFLICT (is_operator) WHERE is_operator DO NOTHING`,
      [OPERATOR.name, OPERATOR.email],
    );
    // id: serial (int)
    const [row] = await sql<{ id: number }>(this.dataSource, 'SELECT id FROM partners WHERE is_operator');
    return row.id;
  }

  async createAdminKey(name: string, mode: Mode = 'live') {
    const partnerId = await this.operatorPartnerId();
    return this.keys.issue(null, partnerId, mode, 'admin', name);
  }
}
