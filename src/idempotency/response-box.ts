import { Inject, Injectable } from '@nestjs/common';
import { SealedBox } from '../common/sealed-box';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

/**
 * Stored responses are encrypted at rest, every one of them: some hold a secret shown only once (an issued API key,
 * a webinar's host link, a personal join link), and sealing all of them means no route can forget to.
 */
@Injectable()
export class ResponseBox extends SealedBox {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(config.webhook.secretKey, 'partner-api', 'idempotency-responses');
  }

  sealBody(body: unknown): string {
    return this.seal(JSON.stringify(body ?? null));
  }

  /** The response, or not ok when it was sealed under another key (WEBHOOK_SECRET_KEY changed) or is damaged. */
  tryOpenBody(sealed: string): { ok: true; value: unknown } | { ok: false } {
    try {
      return { ok: true, value: JSON.parse(this.open(sealed)) };
    } catch {
      return { ok: false };
    }
  }
}
