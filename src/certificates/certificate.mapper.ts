import type { Mode } from '../common/scope';
import type { Certificate } from './certificates.repository';
import type { CertificateDto, PublicCertificateDto } from './dto/certificate.dto';

/** Platform label printed on certificates; test-mode ones say so, so nobody mistakes them for real ones. */
export function platformLabel(mode: Mode): string {
  return mode === 'live' ? 'Learning Platform' : 'Learning Platform (test)';
}

/** An issue date as people read it on the certificate and its page: "22 November 2026". */
export function formatIssueDate(isoDate: string): string {
  return new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** Absolute URLs of a certificate, built from PUBLIC_BASE_URL. */
export class CertificateUrls {
  constructor(private readonly publicBaseUrl: string) {}

  /**
   * The issuer's id in credentials: the service's public origin for live certificates, a distinct id under it for
   * test ones, so a verifier that trusts the production issuer refuses test credentials.
   */
  issuer(mode: Mode): string {
    return mode === 'live' ? this.publicBaseUrl : `${this.publicBaseUrl}/issuers/test`;
  }

  /** The verification page a person opens (the QR code's target). */
  verify(id: string): string {
    return `${this.publicBaseUrl}/verify/${id}`;
  }

  download(id: string): string {
    return `${this.publicBaseUrl}/api/certificates/${id}/download`;
  }

  credential(id: string): string {
    return `${this.publicBaseUrl}/api/certificates/${id}/credential`;
  }

  /** The course as an achievement: its public preview page. */
  course(courseId: number): string {
    return `${this.publicBaseUrl}/preview/courses/${courseId}`;
  }

  get jwks(): string {
    return `${this.publicBaseUrl}/.well-known/jwks.json`;
  }
}

export function toCertificateView(c: Certificate, urls: CertificateUrls): CertificateDto {
  return {
    certificate_id: c.id,
    user_id: c.userId,
    course_id: c.courseId,
    holder_name: c.holderName,
    course_title: c.courseTitle,
    issued_at: c.issuedAt,
    platform: platformLabel(c.mode),
    verify_url: urls.verify(c.id),
    download_url: urls.download(c.id),
    override_quiz: c.overrideQuiz,
  };
}

/** What anyone may see without a key: no user id, e-mail or partner. */
export function toPublicCertificate(c: Certificate): PublicCertificateDto {
  return { id: c.id, holder_name: c.holderName, course_title: c.courseTitle, issued_at: c.issuedAt, platform: platformLabel(c.mode) };
}
