import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sql } from '../common/database';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { RedisService } from '../redis/redis.service';

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
    @InjectDataSource() private readonly dataSource: DataSource,
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

  async invalidate(): Promise<void> {
    this.loadedAt = 0;
    await this.redis.publish(CHANNEL, '1').catch(() => undefined);
  }

  private refresh(): Promise<void> {
    // origin: text (an element of allowed_origins text[])
    this.loading ??= sql<{ origin: string }>(this.dataSource, `SELECT DISTINCT unnest(allowed_origins) AS origin FROM partners WHERE status = 'active'`)
      .then((rows) => {
        this.origins = new Set(rows.map((r) => r.origin));
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
