import { Injectable, OnModuleInit } from '@nestjs/common';
import { CATALOGUE_CHANGED } from '../redis/channels';
import { RedisService } from '../redis/redis.service';

const TTL_MS = 2000;
/**
 * An entry still in use is loaded again this long after its load started, while it still answers: readers keep
 * being served from the cache instead of all waiting for PostgreSQL each time it expires (every cached read would
 * otherwise pause for one statement every TTL_MS). No entry answers longer than TTL_MS after its load started.
 */
const REFRESH_AFTER_MS = 1500;
const MAX_ENTRIES = 2000;

interface Entry {
  value: Promise<unknown>;
  /** When its load started. */
  loadedAt: number;
  /** Set once `value` has resolved: only a loaded entry is refreshed ahead (a failed one is removed). */
  settled: boolean;
  /** The load that will replace it, once one has started. */
  next?: Entry;
}

/**
 * A small in-process cache of catalogue reads, keyed by the query and the catalogue version (which every clear
 * advances). Entries live two seconds (another instance's enrolments may show that late); any catalogue change
 * clears every instance's cache at once through Redis pub/sub.
 */
@Injectable()
export class CatalogueCache implements OnModuleInit {
  private readonly entries = new Map<string, Entry>();
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
    if (hit) {
      if (now - hit.loadedAt < TTL_MS) {
        if (hit.settled && !hit.next && now - hit.loadedAt >= REFRESH_AFTER_MS) hit.next = this.start(key, load, now, hit);
        return hit.value as Promise<T>;
      }
      // Expired: the load that replaces it, if one started within TTL_MS, answers from now on.
      const next = hit.next;
      if (next && now - next.loadedAt < TTL_MS) {
        this.entries.set(key, next);
        return next.value as Promise<T>;
      }
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const entry = this.start(key, load, now);
    this.entries.set(key, entry);
    return entry.value as Promise<T>;
  }

  /**
   * Starts a load for `key`; as a refresh of `current` it takes the entry's place once it has resolved. Failures are
   * not cached; clearLocal() may have replaced the entry meanwhile, so only this one is removed (or not put in).
   */
  private start<T>(key: string, load: () => Promise<T>, now: number, current?: Entry): Entry {
    const value = load();
    const entry: Entry = { value, loadedAt: now, settled: false };
    value.then(
      () => {
        entry.settled = true;
        if (current && this.entries.get(key) === current) this.entries.set(key, entry);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        if (current?.next === entry) current.next = undefined;
      },
    );
    return entry;
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
