import { Injectable, OnModuleInit } from '@nestjs/common';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { RedisService } from '../redis/redis.service';

const TTL_MS = 2000;
const MAX_ENTRIES = 2000;

/**
 * A small in-process cache of catalogue reads, keyed by the query and the catalogue version (which every clear
 * advances). Entries live two seconds (another instance's enrolments may show that late); any catalogue change
 * clears every instance's cache at once through Redis pub/sub.
 */
@Injectable()
export class CatalogueCache implements OnModuleInit {
  private readonly entries = new Map<string, { value: Promise<unknown>; expires: number }>();
  private version = 0;

  constructor(private readonly redis: RedisService) {}

  onModuleInit(): void {
    this.redis.subscribe(CATALOGUE_CHANGED, () => this.clearLocal());
  }

  /** One load per key at a time: when an entry expires under load, concurrent callers share the same query. */
  getOrLoad<T>(query: string, load: () => Promise<T>): Promise<T> {
    const key = `${this.version}:${query}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value as Promise<T>;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const value = load();
    const entry = { value, expires: now + TTL_MS };
    this.entries.set(key, entry);
    // Failures are not cached; invalidate() may have replaced the entry meanwhile, so only this one is removed.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  /** Clears this process only, for changes other instances may see up to the TTL later (enrolment counts). */
  clearLocal(): void {
    this.version++;
    this.entries.clear();
  }

  /** Called after a catalogue change commits: clears this process now and every other one via Redis. */
  async invalidate(): Promise<void> {
    this.clearLocal();
    await this.redis.publish(CATALOGUE_CHANGED, String(Date.now())).catch(() => undefined);
  }
}
