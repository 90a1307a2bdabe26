import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { Scope } from '../common/scope';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { CoursesService } from '../courses/courses.service';
import { InTransactionHookMap, InTransactionHooks } from '../events/hooks';
import type { Tx } from '../events/transaction-runner';
import { UsersService, UserSnapshot } from '../users/users.service';
import { type Certificate, CertificatesRepository } from './certificates.repository';
import { newCertificateId } from './certificate-id';
import { CertificateUrls } from './certificate.mapper';

export interface IssueRequest {
  scope: Scope;
  user: UserSnapshot;
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
    private readonly repo: CertificatesRepository,
    private readonly users: UsersService,
    private readonly courses: CoursesService,
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
    // Any course, published or not: a course unpublished after enrolment still certifies.
    const courseTitle = (await this.courses.titles([req.courseId], tx.em)).get(req.courseId);
    if (courseTitle === undefined) throw new Error(`course ${req.courseId} of enrolment ${req.enrollmentId} does not exist`);
    return this.repo.insertOnce(tx.em, req.scope, {
      id: newCertificateId(req.scope.mode, req.issuedOn),
      userId: req.user.id,
      courseId: req.courseId,
      enrollmentId: req.enrollmentId,
      holderName: req.user.name,
      courseTitle,
      issuedAt: isoDate(req.issuedOn),
      overrideQuiz: req.overrideQuiz,
    });
  }

  private async recordIssued(tx: Tx, cert: Certificate, user: UserSnapshot): Promise<void> {
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
    const user = await this.users.snapshotAnyScope(input.userId, tx.em);
    if (!user) throw new Error(`learner ${input.userId} of enrolment ${input.enrollmentId} does not exist`);
    const scope: Scope = { partnerId: user.partnerId, mode: user.mode };
    const issued = await this.insert(tx, {
      scope,
      user,
      courseId: input.courseId,
      enrollmentId: input.enrollmentId,
      issuedOn: input.completedAt,
      overrideQuiz: input.overrideQuiz,
    });
    const cert = issued ?? (await this.repo.findByEnrollment(tx.em, scope, input.enrollmentId))!;
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
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
