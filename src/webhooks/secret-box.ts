import { Inject, Injectable } from '@nestjs/common';
import { SealedBox } from '../common/sealed-box';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

/** Encrypts webhook signing secrets at rest: AES-256-GCM with a key derived (HKDF-SHA256) from WEBHOOK_SECRET_KEY. */
@Injectable()
export class SecretBox extends SealedBox {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(config.webhook.secretKey, 'partner-api', 'webhook-secrets');
  }
}
