import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { RedisService } from '../redis/redis.service';
import { PartnersRepository } from './partners.repository';

const CHANNEL = 'cors.changed';
const REFRESH_MS = 5000;

/**
 * CORS preflights carry no key, so they are answered from the union of every partner's allowed origins
 * (plus the service's own origin). The per-partner check happens in the API-key guard on the real request.
 */
@Injectable()
export class CorsOrigins implements OnModuleInit {
  private origins = new Set<string>();
  private loadedAt = 0;
  private loading?: Promise<void>;
  readonly own: string;

  constructor(
    private readonly repo: PartnersRepository,
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.own = new URL(config.publicBaseUrl).origin;
  }

  onModuleInit(): void {
    this.redis.subscribe(CHANNEL, () => {
      this.loadedAt = 0;
    });
  }

  async isAllowed(origin: string): Promise<boolean> {
    if (origin === this.own) return true;
    if (Date.now() - this.loadedAt > REFRESH_MS) await this.refresh();
    return this.origins.has(origin);
  }

  /** Every active partner's allowed origins (the service's own not included), as loaded at most REFRESH_MS ago. */
  async all(): Promise<string[]> {
    if (Date.now() - this.loadedAt > REFRESH_MS) await this.refresh();
    return [...this.origins];
  }

  async invalidate(): Promise<void> {
    this.loadedAt = 0;
    await this.redis.publish(CHANNEL, '1').catch(() => undefined);
  }

  private refresh(): Promise<void> {
    this.loading ??= this.repo
      .activeOrigins()
      .then((origins) => {
        this.origins = new Set(origins);
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
