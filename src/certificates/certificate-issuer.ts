import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../common/database';
import type { Scope } from '../common/scope';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { Course } from '../courses/course.entity';
import { InTransactionHookMap, InTransactionHooks } from '../events/hooks';
import type { Tx } from '../events/transaction-runner';
import { User } from '../users/user.entity';
import { Certificate } from './certificate.entity';
import { newCertificateId } from './certificate-id';
import { CertificateUrls } from './certificate.mapper';

export interface IssueRequest {
  scope: Scope;
  user: User;
  courseId: number;
  enrollmentId: number;
  issuedOn: Date;
  overrideQuiz: boolean;
}

type CompletedInput = InTransactionHookMap['enrollment.completed']['input'];

/**
 * Writes certificates inside the caller's transaction and records their events. Used by the
 * 'enrollment.completed' hook (raised by the enrolment module as the last topic completes) and by manual issue.
 */
@Injectable()
export class CertificateIssuer implements OnModuleInit {
  readonly urls: CertificateUrls;

  constructor(
    private readonly hooks: InTransactionHooks,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.urls = new CertificateUrls(config.publicBaseUrl);
  }

  onModuleInit(): void {
    this.hooks.register('enrollment.completed', (tx, input) => this.onEnrollmentCompleted(tx, input));
  }

  /** Inserts the enrolment's certificate and records certificate.issued; null when the enrolment already has one. */
  async issue(tx: Tx, req: IssueRequest): Promise<Certificate | null> {
    const cert = await this.insert(tx, req);
    if (cert) await this.recordIssued(tx, cert, req.user);
    return cert;
  }

  /** The unique enrollment_id makes concurrent attempts wait for the winner and then insert nothing. */
  private async insert(tx: Tx, req: IssueRequest): Promise<Certificate | null> {
    const courseTitle = await this.courseTitle(tx.em, req.courseId);
    const id = newCertificateId(req.scope.mode, req.issuedOn);
    // created_at: timestamptz
    const rows = await sql<{ created_at: Date }>(
      tx.em,
      `INSERT INTO certificates (id, partner_id, mode, user_id, course_id, enrollment_id, holder_name, course_title, issued_at, override_quiz)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (enrollment_id) DO NOTHING
       RETURNING created_at`,
      [id, req.scope.partnerId, req.scope.mode, req.user.id, req.courseId, req.enrollmentId, req.user.name, courseTitle, isoDate(req.issuedOn), req.overrideQuiz],
    );
    if (!rows.length) return null;
    return tx.em.create(Certificate, {
      id,
      partnerId: req.scope.partnerId,
      mode: req.scope.mode,
      userId: req.user.id,
      courseId: req.courseId,
      enrollmentId: req.enrollmentId,
      holderName: req.user.name,
      courseTitle,
      issuedAt: isoDate(req.issuedOn),
      overrideQuiz: req.overrideQuiz,
      revokedAt: null,
      createdAt: rows[0].created_at,
    });
  }

  private async recordIssued(tx: Tx, cert: Certificate, user: User): Promise<void> {
    await tx.record(
      { partnerId: cert.partnerId, mode: cert.mode },
      'certificate.issued',
      {
        certificate_id: cert.id,
        user_id: cert.userId,
        external_user_id: user.externalUserId,
        course_id: cert.courseId,
        course_title: cert.courseTitle,
        holder_name: cert.holderName,
        issued_at: cert.issuedAt,
        download_url: this.urls.download(cert.id),
        verify_url: this.urls.verify(cert.id),
      },
      cert.createdAt,
    );
  }

  /** Completion issues the certificate (or reuses the one issued manually before) and records course.completed. */
  private async onEnrollmentCompleted(tx: Tx, input: CompletedInput): Promise<{ certificateId: string }> {
    // The hook carries no scope: the learner's own record says which partner and mode it belongs to.
    const user = await tx.em.findOneOrFail(User, { where: { id: input.userId } });
    const scope: Scope = { partnerId: user.partnerId, mode: user.mode };
    const issued = await this.insert(tx, {
      scope,
      user,
      courseId: input.courseId,
      enrollmentId: input.enrollmentId,
      issuedOn: input.completedAt,
      overrideQuiz: input.overrideQuiz,
    });
    const cert = issued ?? (await tx.scoped(scope).findOne(Certificate, { enrollmentId: input.enrollmentId }))!;
    await tx.record(
      scope,
      'course.completed',
      {
        user_id: user.id,
        user_name: user.name,
        user_email: user.email,
        external_user_id: user.externalUserId,
        course_id: input.courseId,
        course_title: cert.courseTitle,
        completed_at: input.completedAt.toISOString(),
        certificate_id: cert.id,
      },
      input.completedAt,
    );
    if (issued) await this.recordIssued(tx, issued, user);
    return { certificateId: cert.id };
  }

  // Read directly rather than through CoursesService.facts: a course unpublished after enrolment still certifies.
  private async courseTitle(em: EntityManager, courseId: number): Promise<string> {
    const course = await em.findOneOrFail(Course, { where: { id: courseId }, select: { id: true, title: true } });
    return course.title;
  }
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
