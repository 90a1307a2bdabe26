import { generateApiKey } from '../../src/api-keys/api-key';
import { KeyStore } from '../../src/api-keys/key-store';
import type { RedisService } from '../../src/redis/redis.service';

/**
 * Finding 8: forged keys each cost a database lookup, and the key cache was cleared entirely at 10,000 entries,
 * so a flood of forged keys also pushed valid keys out. Collaborators (the repository, Redis) are stubbed: this is about the cache alone.
 */
function storeWith(validHash: string) {
  const lookups: string[] = [];
  const repo = {
    lookup: (hash: string) => {
      lookups.push(hash);
      if (hash !== validHash) return Promise.resolve(null);
      return Promise.resolve({
        id: 'key_1',
        partner_id: 1,
        mode: 'test',
        role: 'partner',
        revoked_at: null,
        name: 'P',
        status: 'active',
        allowed_origins: [],
        code: 'growth',
        plan_name: 'Growth',
        monthly_quota: 50000,
        rate_limit_per_second: 50,
        webhook_event_types: null,
        webinar_rooms: 5,
        features: [],
      });
    },
  };
  const redis = { subscribe: () => undefined, publish: () => Promise.resolve() } as unknown as RedisService;
  return { store: new KeyStore(repo as never, redis), lookups };
}

describe('KeyStore', () => {
  const valid = generateApiKey('test').hash;
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('remembers a key found invalid for a while: asking again costs no lookup', async () => {
    const { store, lookups } = storeWith(valid);
    const forged = generateApiKey('test').hash;
    expect(await store.find(forged)).toBeNull();
    now += 20_000;
    expect(await store.find(forged)).toBeNull();
    expect(lookups.filter((h) => h === forged)).toHaveLength(1);
  });

  it('keeps a valid key in use while a flood of forged keys comes and goes', async () => {
    const { store, lookups } = storeWith(valid);
    expect(await store.find(valid)).not.toBeNull();
    for (let i = 0; i < 25_000; i++) {
      await store.find(generateApiKey('test').hash);
      if (i % 1000 === 0) expect(await store.find(valid)).not.toBeNull();
    }
    expect(await store.find(valid)).not.toBeNull();
    expect(lookups.filter((h) => h === valid)).toHaveLength(1);
  });

  it('reads a key in use again before its entry expires, answering from the cache meanwhile', async () => {
    const { store, lookups } = storeWith(valid);
    expect(await store.find(valid)).not.toBeNull();
    now += 1500;
    expect(store.cached(valid)).not.toBeUndefined();
    expect(lookups).toHaveLength(1);
    now += 600; // 2.1 s after it was stored: a lookup starts, the entry still answers at once
    expect(store.cached(valid)).not.toBeUndefined();
    expect(store.cached(valid)).not.toBeUndefined();
    expect(lookups).toHaveLength(2);
    await new Promise((r) => setImmediate(r));
    now += 2500; // 4.6 s after the first lookup, 2.5 s after the refresh stored its answer
    expect(store.cached(valid)).not.toBeUndefined();
    expect(lookups).toHaveLength(3);
  });

  it('never answers from an entry older than its three seconds', async () => {
    const { store, lookups } = storeWith(valid);
    expect(await store.find(valid)).not.toBeNull();
    now += 3000;
    expect(store.cached(valid)).toBeUndefined();
    expect(await store.find(valid)).not.toBeNull();
    expect(lookups).toHaveLength(2);
  });

  it('does not keep what a lookup read when the keys changed while it ran', async () => {
    let release!: () => void;
    const record = { id: 'key_1', partner_id: 1, mode: 'test', role: 'partner', revoked_at: null, name: 'P', status: 'active', allowed_origins: [] };
    const repo = { lookup: () => new Promise((r) => (release = () => r(record))) };
    const redis = { subscribe: () => undefined, publish: () => Promise.resolve() } as unknown as RedisService;
    const store = new KeyStore(repo as never, redis);
    const pending = store.find(valid);
    await store.invalidate();
    release();
    expect(await pending).not.toBeNull(); // the caller that asked still gets its answer
    expect(store.cached(valid)).toBeUndefined();
  });

  it('evicts the least recently used valid key when full, not every key', async () => {
    const hashes = Array.from({ length: 10_001 }, () => generateApiKey('test').hash);
    const lookups: string[] = [];
    const repo = {
      lookup: (hash: string) => {
        lookups.push(hash);
        return Promise.resolve({
          id: hash,
          partner_id: 1,
          mode: 'test',
          role: 'partner',
          revoked_at: null,
          name: 'P',
          status: 'active',
          allowed_origins: [],
          code: 'growth',
          plan_name: 'Growth',
          monthly_quota: 1,
          rate_limit_per_second: 1,
          webhook_event_types: null,
          webinar_rooms: 1,
          features: [],
        });
      },
    };
    const store = new KeyStore(repo as never, { subscribe: () => undefined } as unknown as RedisService);
    for (const h of hashes.slice(0, 10_000)) await store.find(h);
    await store.find(hashes[0]); // recently used again: hashes[1] is now the least recently used
    await store.find(hashes[10_000]);
    lookups.length = 0;
    await store.find(hashes[0]);
    await store.find(hashes[5_000]);
    expect(lookups).toEqual([]);
    await store.find(hashes[1]);
    expect(lookups).toEqual([hashes[1]]);
  });
});
