import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { errorMessage } from '../../common/error-message';
import { SecretBox } from '../secret-box';
import { DeliveryStore } from './delivery-store';

const PAGE = 1000;

/**
 * At start-up, tells the operator how many subscriptions have a signing secret the current WEBHOOK_SECRET_KEY cannot
 * decrypt (the key was changed without re-sealing them): their deliveries cannot be signed, and wait with last_error
 * saying so. One AES-GCM open per subscription, in pages; a database failure only skips the check.
 */
@Injectable()
export class SecretKeyCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookSecrets');

  constructor(
    private readonly store: DeliveryStore,
    private readonly secrets: SecretBox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const { total, unreadable } = await this.count();
      if (!unreadable) return;
      this.logger.warn(
        { unreadable, total },
        `${unreadable} of ${total} webhook subscription${total === 1 ? '' : 's'} ${unreadable === 1 ? 'has' : 'have'} a signing secret the current WEBHOOK_SECRET_KEY cannot read: their deliveries are not sent (last_error says so) until the key they were sealed with is restored or each partner sets a new secret (rotate-secret)`,
      );
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'Could not check that webhook signing secrets are readable with WEBHOOK_SECRET_KEY');
    }
  }

  private async count(): Promise<{ total: number; unreadable: number }> {
    let total = 0;
    let unreadable = 0;
    for (let after = ''; ;) {
      const page = await this.store.sealedSecretsPage(after, PAGE);
      for (const row of page) {
        total++;
        try {
          this.secrets.open(row.secret_encrypted);
        } catch {
          unreadable++;
        }
      }
      if (page.length < PAGE) return { total, unreadable };
      after = page[page.length - 1].id;
    }
  }
}
