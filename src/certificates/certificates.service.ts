import { Injectable } from '@nestjs/common';
import { adminModes, type AuthContext } from '../auth/auth-context';
import { DomainError } from '../common/errors';
import { Mode, Scope } from '../common/scope';
import { EnrollmentsService } from '../enrollment/enrollments.service';
import { TransactionRunner } from '../events/transaction-runner';
import { UsersService } from '../users/users.service';
import { type Certificate, CertificatesRepository } from './certificates.repository';
import { certificateMode, normalizeCertificateId } from './certificate-id';
import { CertificateIssuer } from './certificate-issuer';
import { toCertificateView } from './certificate.mapper';
import { CertificateDto, IssueCertificateDto, RevokedCertificateDto } from './dto/certificate.dto';

@Injectable()
export class CertificatesService {
  constructor(
    private readonly repo: CertificatesRepository,
    private readonly tx: TransactionRunner,
    private readonly issuer: CertificateIssuer,
    private readonly users: UsersService,
    private readonly enrollments: EnrollmentsService,
  ) {}

  /**
   * Manual issue by a partner or an admin. `actsForPartner` is false for an admin call without X-Partner-Id:
   * the learner is then found by the global user id and the certificate belongs to that learner's partner and mode.
   */
  async issue(auth: AuthContext, actsForPartner: boolean, dto: IssueCertificateDto): Promise<CertificateDto> {
    const override = dto.override_quiz === true;
    if (override && auth.role !== 'admin') throw new DomainError('admin_only', { field: 'override_quiz' }, 'override_quiz needs an admin key.');
    const scope = auth.role === 'admin' && !actsForPartner ? await this.ownerScopeOf(dto.user_id, adminModes(auth)) : auth.scope;
    const cert = await this.tx.run(async (tx) => {
      const user = await this.users.snapshot(scope, dto.user_id, tx.em);
      const progress = await this.enrollments.progressFor(tx.em, scope, user.id, dto.course_id);
      if (!progress) throw new DomainError('enrollment_not_found');
      const existing = await this.repo.findByEnrollment(tx.em, scope, progress.enrollmentId);
      if (existing) throw new DomainError('certificate_already_issued', { certificate_id: existing.id });
      const topicsDone = progress.completedTopics >= progress.totalTopics;
      if (!topicsDone || (progress.quizzesPending > 0 && !override)) {
        throw new DomainError('course_not_completed', {
          completed_topics: progress.completedTopics,
          total_topics: progress.totalTopics,
          quizzes_pending: progress.quizzesPending,
        });
      }
      const issued = await this.issuer.issue(tx, {
        scope,
        user,
        courseId: dto.course_id,
        enrollmentId: progress.enrollmentId,
        issuedOn: new Date(),
        // Recorded only when the waiver was actually needed.
        overrideQuiz: override && progress.quizzesPending > 0,
      });
      if (issued) return issued;
      // Lost the race to a parallel attempt, which has committed by now.
      const winner = await this.repo.findByEnrollment(tx.em, scope, progress.enrollmentId);
      throw new DomainError('certificate_already_issued', { certificate_id: winner?.id });
    });
    return toCertificateView(cert, this.issuer.urls);
  }

  /** Any certificate by its public id (verification, download); null when unknown or malformed. */
  async findPublic(rawId: string): Promise<Certificate | null> {
    const id = normalizeCertificateId(rawId);
    return id ? this.repo.findById(id) : null;
  }

  /** Admin revoke of a certificate of one of `modes`: idempotent, the first revocation time is kept. */
  async revoke(rawId: string, modes: Mode[]): Promise<RevokedCertificateDto> {
    const id = normalizeCertificateId(rawId);
    const cert = id && modes.includes(certificateMode(id)) ? await this.repo.revoke(id) : null;
    if (!cert) throw new DomainError('certificate_not_found');
    return { ...toCertificateView(cert, this.issuer.urls), revoked_at: cert.revokedAt!.toISOString() };
  }

  verifyUrl(id: string): string {
    return this.issuer.urls.verify(id);
  }

  private async ownerScopeOf(userId: number, modes: Mode[]): Promise<Scope> {
    const user = await this.users.snapshotAnyScope(userId);
    if (!user || !modes.includes(user.mode)) throw new DomainError('user_not_found');
    return { partnerId: user.partnerId, mode: user.mode };
  }
}
