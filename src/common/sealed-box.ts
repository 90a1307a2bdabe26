import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from a service secret and a purpose, so each use of the secret
 * (webhook signing secrets, attendee link tokens) has its own key. Sealed values read `v1:<iv>:<tag>:<ciphertext>`.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(secret: string, salt: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, salt, purpose, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
  }

  /** Throws when the value is not sealed by this box (another secret, another purpose, tampered). */
  open(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('Unknown sealed value format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
  }
}
