import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

/**
 * Sends a partner's e-mail verification link through SMTP_URL. Without it (development) the link is logged instead,
 * so a developer can follow it; in production the service warns at start-up that nobody receives the links.
 */
@Injectable()
export class VerificationMailer implements OnApplicationShutdown {
  private readonly logger = new Logger(VerificationMailer.name);
  private readonly transport: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtp.url ? createTransport(config.smtp.url) : null;
    if (!this.transport && config.nodeEnv === 'production') {
      this.logger.warn('SMTP_URL is not set: e-mail verification links are only logged, and partners cannot verify their addresses');
    }
  }

  async send(to: string, partnerName: string, link: string): Promise<void> {
    if (!this.transport) {
      this.logger.log({ to, link }, 'E-mail verification link (SMTP_URL is not set, so it is logged instead of sent)');
      return;
    }
    await this.transport.sendMail({
      from: this.config.smtp.from,
      to,
      subject: 'Verify your e-mail address for the Partner API',
      text: `Hello ${partnerName},\n\nPlease confirm that this address belongs to your partner account by opening this link within 7 days:\n\n${link}\n\nYou need a verified address to ask for production access. If you did not register, ignore this message.\n`,
    });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
