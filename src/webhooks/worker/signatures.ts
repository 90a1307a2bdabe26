import { createHmac } from 'node:crypto';

/** The secrets that sign an attempt: the current one, and the previous one while a rotation's overlap lasts. */
export interface SigningSecrets {
  current: string;
  previous: string | null;
}

/**
 * The signature headers of one attempt. Standard Webhooks: `webhook-signature` is
 * `v1,` + base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}", keyed with the secret's UTF-8 bytes (so a
 * library given `whsec_` + base64(secret) verifies it); during an overlap both secrets sign, space-separated, newest
 * first. `X-SVC-Signature` signs the body alone, as before, with the current secret; `X-SVC-Signature-Previous` with
 * the previous one.
 */
export function signatureHeaders(deliveryId: string, body: string | Buffer, secrets: SigningSecrets, timestampSec: number): Record<string, string> {
  // The body's bytes are hashed as they are (the caller sends the same Buffer), not copied into one string per MAC.
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const prefix = `${deliveryId}.${timestampSec}.`;
  const standard = (secret: string) => `v1,${createHmac('sha256', secret).update(prefix).update(bytes).digest('base64')}`;
  const svc = (secret: string) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
  const headers: Record<string, string> = {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets.previous === null ? standard(secrets.current) : `${standard(secrets.current)} ${standard(secrets.previous)}`,
    'x-svc-signature': svc(secrets.current),
  };
  if (secrets.previous !== null) headers['x-svc-signature-previous'] = svc(secrets.previous);
  return headers;
}
