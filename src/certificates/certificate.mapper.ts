import type { Mode } from '../common/scope';
import type { Certificate } from './certificate.entity';
import type { CertificateDto, PublicCertificateDto } from './dto/certificate.dto';

/** Platform label printed on certificates; test-mode ones say so, so nobody mistakes them for real ones. */
export function platformLabel(mode: Mode): string {
  return mode === 'live' ? 'Learning Platform' : 'Learning Platform (test)';
}

/** Absolute URLs of a certificate, built from PUBLIC_BASE_URL. */
export class CertificateUrls {
  constructor(private readonly publicBaseUrl: string) {}

  verify(id: string): string {
    return `${this.publicBaseUrl}/api/certificates/verify/${id}`;
  }

  download(id: string): string {
    return `${this.publicBaseUrl}/api/certificates/${id}/download`;
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
