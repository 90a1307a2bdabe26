import { Batcher } from '../../src/common/batcher';

describe('Batcher', () => {
  it('sends calls made together as one batch and answers each with its own output', async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(async (xs) => {
      batches.push(xs);
      return xs.map((x) => x * 10);
    });
    await expect(Promise.all([1, 2, 3].map((x) => b.call(x)))).resolves.toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('groups calls arriving while maxInFlight batches run into the next batch, and caps its size', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = new Batcher<number, number>(
      async (xs) => {
        batches.push(xs);
        if (batches.length === 1) await gate;
        return xs;
      },
      { maxBatch: 2, maxInFlight: 1 },
    );
    const first = b.call(0);
    await new Promise((r) => setImmediate(r)); // the first batch is out and blocked
    const later = [1, 2, 3, 4, 5].map((x) => b.call(x));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[0]]); // nothing else while the one allowed batch runs
    release();
    await expect(Promise.all([first, ...later])).resolves.toEqual([0, 1, 2, 3, 4, 5]);
    expect(batches).toEqual([[0], [1, 2], [3, 4], [5]]);
  });

  it('rejects every call of a failed batch and goes on with the next', async () => {
    let fail = true;
    const b = new Batcher<number, number>(async (xs) => {
      if (fail) throw new Error('database away');
      return xs;
    });
    const failed = [1, 2].map((x) => b.call(x));
    await expect(Promise.allSettled(failed)).resolves.toEqual([
      { status: 'rejected', reason: new Error('database away') },
      { status: 'rejected', reason: new Error('database away') },
    ]);
    fail = false;
    await expect(b.call(3)).resolves.toBe(3);
  });
});
