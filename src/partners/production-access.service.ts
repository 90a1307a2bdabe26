import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { KeysService } from '../api-keys/keys.service';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import { prefixedIdShape } from '../common/params';
import { ListAccessRequestsQuery } from './dto/partner.dto';
import { Partner } from './partner.entity';
import { toAccessRequestView, toAdminAccessRequestView } from './partner.mapper';
import { ProductionAccessRequest } from './production-access-request.entity';
import { isUniqueViolation } from '../common/database';

const REQUEST_ID = prefixedIdShape('par');

/** A partner asks for live access with its test key; an admin approves (issuing the live key) or rejects. */
@Injectable()
export class ProductionAccessService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: KeysService,
  ) {}

  async request(partnerId: number, useCase: string) {
    const repo = this.dataSource.getRepository(ProductionAccessRequest);
    try {
      const saved = await repo.save(repo.create({ id: newId('par'), partnerId, useCase, status: 'pending', reason: null, liveKeyId: null, reviewedAt: null }));
      return { request: toAccessRequestView(saved) };
    } catch (e) {
      // One pending request per partner is a database rule (partial unique index).
      if (isUniqueViolation(e)) {
        const pending = await repo.findOneByOrFail({ partnerId, status: 'pending' });
        throw new DomainError('production_access_already_requested', { request_id: pending.id });
      }
      throw e;
    }
  }

  async list(query: ListAccessRequestsQuery) {
    const qb = this.dataSource
      .getRepository(ProductionAccessRequest)
      .createQueryBuilder('r')
      .innerJoin(Partner, 'p', 'p.id = r.partner_id')
      .addSelect('p.name', 'partner_name')
      .orderBy('r.created_at', 'ASC')
      .addOrderBy('r.id', 'ASC')
      .offset(offsetOf(query))
      .limit(query.limit);
    if (query.status) qb.where('r.status = :status', { status: query.status });
    const [{ entities, raw }, total] = await Promise.all([qb.getRawAndEntities<{ partner_name: string }>(), qb.getCount()]);
    return pageOf(
      'requests',
      entities.map((r, i) => toAdminAccessRequestView(r, raw[i].partner_name)),
      total,
      query,
    );
  }

  async approve(id: string) {
    return this.dataSource.transaction(async (em) => {
      const request = await this.claim(em.getRepository(ProductionAccessRequest), id);
      const key = await this.keys.issue(em, request.partnerId, 'live');
      request.status = 'approved';
      request.reviewedAt = new Date();
      request.liveKeyId = key.id;
      await em.save(request);
      const partner = await em.getRepository(Partner).findOneByOrFail({ id: request.partnerId });
      return {
        request: toAdminAccessRequestView(request, partner.name),
        api_key: key,
      };
    });
  }

  async reject(id: string, reason: string) {
    return this.dataSource.transaction(async (em) => {
      const request = await this.claim(em.getRepository(ProductionAccessRequest), id);
      request.status = 'rejected';
      request.reason = reason;
      request.reviewedAt = new Date();
      await em.save(request);
      const partner = await em.getRepository(Partner).findOneByOrFail({ id: request.partnerId });
      return { request: toAdminAccessRequestView(request, partner.name) };
    });
  }

  /** Locks a pending request so two admins cannot both review it. */
  private async claim(repo: ReturnType<DataSource['getRepository']>, id: string): Promise<ProductionAccessRequest> {
    if (!REQUEST_ID.test(id)) throw new DomainError('production_access_request_not_found');
    const request = (await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } })) as ProductionAccessRequest | null;
    if (!request) throw new DomainError('production_access_request_not_found');
    if (request.status !== 'pending') throw new DomainError('request_already_reviewed', { status: request.status });
    return request;
  }
}
