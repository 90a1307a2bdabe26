import { CatalogueCache } from '../../src/courses/catalogue-cache';
import type { RedisService } from '../../src/redis/redis.service';

/**
 * Cached catalogue reads are loaded again shortly before they expire, while the entry still answers, so that readers do
 * not all wait for PostgreSQL every two seconds; no entry answers later than two seconds after its load started.
 */
describe('CatalogueCache', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  const cache = () => new CatalogueCache({ subscribe: () => undefined, publish: () => Promise.resolve() } as unknown as RedisService);
  const settle = () => new Promise((r) => setImmediate(r));

  function loads() {
    const started: Array<{ at: number; resolve: (v: string) => void; reject: (e: Error) => void }> = [];
    const load = () =>
      new Promise<string>((resolve, reject) => {
        started.push({ at: now, resolve, reject });
      });
    return { started, load };
  }

  it('answers from the entry while its refresh loads, then from the refresh', async () => {
    const c = cache();
    const { started, load } = loads();
    const first = c.getOrLoad('k', load);
    started[0].resolve('v1');
    await expect(first).resolves.toBe('v1');

    now += 1000;
    await expect(c.getOrLoad('k', load)).resolves.toBe('v1');
    expect(started).toHaveLength(1);

    now += 600; // 1.6 s after the load started: the refresh starts, the entry still answers
    await expect(c.getOrLoad('k', load)).resolves.toBe('v1');
    await expect(c.getOrLoad('k', load)).resolves.toBe('v1');
    expect(started).toHaveLength(2);

    started[1].resolve('v2');
    await settle();
    await expect(c.getOrLoad('k', load)).resolves.toBe('v2');

    now += 1900; // 1.9 s after the refresh started: still its answer, and one more refresh on the way
    await expect(c.getOrLoad('k', load)).resolves.toBe('v2');
    expect(started).toHaveLength(3);
  });

  it('never answers with an entry older than two seconds: past it, readers wait for the refresh', async () => {
    const c = cache();
    const { started, load } = loads();
    const first = c.getOrLoad('k', load);
    started[0].resolve('v1');
    await first;

    now += 1600;
    await c.getOrLoad('k', load); // starts the refresh, which stays pending
    now += 500; // the first entry is now 2.1 s old
    const waiting = c.getOrLoad('k', load);
    expect(started).toHaveLength(2); // no third load: the refresh answers
    started[1].resolve('v2');
    await expect(waiting).resolves.toBe('v2');
  });

  it('keeps the entry when its refresh fails, and tries again on the next read', async () => {
    const c = cache();
    const { started, load } = loads();
    const first = c.getOrLoad('k', load);
    started[0].resolve('v1');
    await first;

    now += 1600;
    await expect(c.getOrLoad('k', load)).resolves.toBe('v1');
    started[1].reject(new Error('down'));
    await settle();
    await expect(c.getOrLoad('k', load)).resolves.toBe('v1');
    expect(started).toHaveLength(3);

    now += 500; // expired: the retry answers
    const after = c.getOrLoad('k', load);
    expect(started).toHaveLength(3);
    started[2].resolve('v3');
    await expect(after).resolves.toBe('v3');
  });

  it('does not let a refresh started before a catalogue change answer after it', async () => {
    const c = cache();
    const { started, load } = loads();
    const first = c.getOrLoad('k', load);
    started[0].resolve('v1');
    await first;

    now += 1600;
    await c.getOrLoad('k', load);
    c.clearLocal();
    started[1].resolve('stale');
    await settle();
    const after = c.getOrLoad('k', load);
    expect(started).toHaveLength(3);
    started[2].resolve('fresh');
    await expect(after).resolves.toBe('fresh');
  });
});
