import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { KeysService } from '../api-keys/keys.service';
import { DomainError } from '../common/errors';
import { newId } from '../common/ids';
import { offsetOf, pageOf } from '../common/pagination';
import { prefixedIdShape } from '../common/params';
import { ListAccessRequestsQuery } from './dto/partner.dto';
import { toAccessRequestView, toAdminAccessRequestView } from './partner.mapper';
import { PartnersRepository, type ProductionAccessRequest } from './partners.repository';

const REQUEST_ID = prefixedIdShape('par');

/** A partner asks for live access with its test key; an admin approves (issuing the live key) or rejects. */
@Injectable()
export class ProductionAccessService {
  constructor(
    private readonly repo: PartnersRepository,
    private readonly keys: KeysService,
  ) {}

  async request(partnerId: number, useCase: string) {
    const partner = await this.repo.find(partnerId);
    if (!partner?.emailVerifiedAt) throw new DomainError('email_not_verified', { email: partner?.email });
    const saved = await this.repo.insertAccessRequest({ id: newId('par'), partnerId, useCase });
    // One pending request per partner is a database rule (partial unique index).
    if (!saved) throw new DomainError('production_access_already_requested', { request_id: await this.repo.pendingAccessRequestId(partnerId) });
    return { request: toAccessRequestView(saved) };
  }

  async list(query: ListAccessRequestsQuery) {
    const [rows, total] = await this.repo.pageAccessRequests(query.status, offsetOf(query), query.limit);
    return pageOf(
      'requests',
      rows.map((r) => toAdminAccessRequestView(r.request, r.partnerName)),
      total,
      query,
    );
  }

  async approve(id: string) {
    return this.repo.transaction(async (em) => {
      const { request: pending, partnerName } = await this.claim(em, id);
      const key = await this.keys.issue(em, pending.partnerId, 'live');
      const request = await this.repo.reviewAccessRequest(em, id, { status: 'approved', reason: null, liveKeyId: key.id });
      return { request: toAdminAccessRequestView(request, partnerName), api_key: key };
    });
  }

  async reject(id: string, reason: string) {
    return this.repo.transaction(async (em) => {
      const { partnerName } = await this.claim(em, id);
      const request = await this.repo.reviewAccessRequest(em, id, { status: 'rejected', reason, liveKeyId: null });
      return { request: toAdminAccessRequestView(request, partnerName) };
    });
  }

  /** Locks a pending request so two admins cannot both review it. */
  private async claim(em: EntityManager, id: string): Promise<{ request: ProductionAccessRequest; partnerName: string }> {
    if (!REQUEST_ID.test(id)) throw new DomainError('production_access_request_not_found');
    const claimed = await this.repo.lockAccessRequest(em, id);
    if (!claimed) throw new DomainError('production_access_request_not_found');
    if (claimed.request.status !== 'pending') throw new DomainError('request_already_reviewed', { status: claimed.request.status });
    return claimed;
  }
}
