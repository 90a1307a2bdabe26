import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook errors used to be recorded as the socket's own message ("ECONNREFUSED: connect ECONNREFUSED
 * 10.0.0.7:443"), which names the address the partner's host resolved to. The sender now records a phrase chosen
 * from the error code alone; this rewrites the errors already stored the same way, so delivery lists and attempt
 * details never show an address. The old wording is not kept: `down` has nothing to restore.
 */
export class DeliveryErrorsWithoutAddresses1763800340000 implements MigrationInterface {
  name = 'DeliveryErrorsWithoutAddresses1763800340000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE webhook_deliveries SET last_error = ${rewrittenError('last_error')} WHERE last_error ~ '${OLD_SOCKET_ERROR}'`);
    await q.query(`UPDATE webhook_attempts SET error = ${rewrittenError('error')} WHERE error ~ '${OLD_SOCKET_ERROR}'`);
  }

  async down(): Promise<void> {}
}

/** "<CODE or error name>: <message>", the old fallback format; the sender's other messages never start that way. */
export const OLD_SOCKET_ERROR = '^([A-Z][A-Z0-9_]+|[A-Za-z]*Error): ';

/** The phrase the sender now records for the code that starts `column` (the same table as WebhookSender's). */
export function rewrittenError(column: string): string {
  const code = `substring(${column} from '${OLD_SOCKET_ERROR}')`;
  return `CASE ${code}
    WHEN 'ECONNREFUSED' THEN 'Connection refused'
    WHEN 'ECONNRESET' THEN 'Connection reset'
    WHEN 'EPIPE' THEN 'Connection closed while sending'
    WHEN 'UND_ERR_SOCKET' THEN 'Connection closed before a response'
    WHEN 'EHOSTUNREACH' THEN 'Host unreachable'
    WHEN 'ENETUNREACH' THEN 'Network unreachable'
    WHEN 'ENOTFOUND' THEN 'Host not found'
    WHEN 'EAI_AGAIN' THEN 'Host not found'
    WHEN 'ETIMEDOUT' THEN 'Connection timed out'
    WHEN 'CERT_HAS_EXPIRED' THEN 'TLS certificate expired'
    WHEN 'DEPTH_ZERO_SELF_SIGNED_CERT' THEN 'TLS certificate not trusted'
    WHEN 'SELF_SIGNED_CERT_IN_CHAIN' THEN 'TLS certificate not trusted'
    WHEN 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' THEN 'TLS certificate not trusted'
    WHEN 'ERR_TLS_CERT_ALTNAME_INVALID' THEN 'TLS certificate does not match the host name'
    ELSE CASE WHEN ${code} ~ '^[A-Z][A-Z0-9_]+$' THEN 'Request failed (' || ${code} || ')' ELSE 'Request failed' END END`;
}
