import { createHash } from 'node:crypto';
import type { Mode } from '../../common/scope';
import { displayText } from '../../common/text';
import type { Certificate } from '../certificates.repository';
import { platformLabel } from '../certificate.mapper';

export const VC_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const OB_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json';

/** The Open Badges 3.0 `OpenBadgeCredential` of a certificate (W3C Verifiable Credentials Data Model 2.0). */
export interface OpenBadgeCredential {
  '@context': [typeof VC_CONTEXT, typeof OB_CONTEXT];
  id: string;
  type: ['VerifiableCredential', 'OpenBadgeCredential'];
  issuer: { id: string; type: ['Profile']; name: string; url: string };
  validFrom: string;
  name: string;
  credentialSubject: {
    id: string;
    type: ['AchievementSubject'];
    name: string;
    achievement: { id: string; type: ['Achievement']; name: string; description: string; criteria: { narrative: string } };
  };
}

/** Where the credential's identifiers point; all derive from PUBLIC_BASE_URL. */
export interface CredentialUrls {
  issuer(mode: Mode): string;
  credential(certificateId: string): string;
  course(courseId: number): string;
}

export function openBadgeCredential(stored: Certificate, urls: CredentialUrls): OpenBadgeCredential {
  // Wallets display these names: never with the controls that reorder them.
  const cert = { ...stored, holderName: displayText(stored.holderName), courseTitle: displayText(stored.courseTitle) };
  const platform = platformLabel(cert.mode);
  return {
    '@context': [VC_CONTEXT, OB_CONTEXT],
    id: urls.credential(cert.id),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: urls.issuer(cert.mode), type: ['Profile'], name: platform, url: urls.issuer('live') },
    validFrom: `${cert.issuedAt}T00:00:00Z`,
    name: `Certificate of Completion: ${cert.courseTitle}`,
    credentialSubject: {
      id: holderId(cert.id),
      type: ['AchievementSubject'],
      name: cert.holderName,
      achievement: {
        id: urls.course(cert.courseId),
        type: ['Achievement'],
        name: cert.courseTitle,
        description: `Completion of the course "${cert.courseTitle}" on ${platform}.`,
        criteria: { narrative: 'Complete every topic of the course and pass every quiz it contains.' },
      },
    },
  };
}

// Fixed namespace of the holder ids (a UUID of its own, so the ids cannot collide with other name-based UUIDs).
const HOLDER_NAMESPACE = Buffer.from('5f0c7f2e8a0d4c4b9c3e2b7d41a6e915', 'hex');

/**
 * The subject's id: a name-based UUID (RFC 9562 version 5) of the certificate id. It names the holder of this one
 * certificate without any personal data, and does not link a person's certificates to each other.
 */
export function holderId(certificateId: string): string {
  const hash = createHash('sha1').update(HOLDER_NAMESPACE).update(certificateId).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
