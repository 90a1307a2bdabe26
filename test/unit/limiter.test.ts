import { Limiter } from '../../src/common/limiter';

describe('Limiter', () => {
  it('runs at most its limit of tasks at once, and every task in the end', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const task = (i: number) =>
      limiter.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return i;
      });
    const results = Promise.all([0, 1, 2, 3, 4].map(task));
    // Open the gates one by one as tasks reach them, until all five have run.
    for (let opened = 0; opened < 5; opened++) {
      while (!gates.length) await new Promise((r) => setImmediate(r));
      expect(running).toBeLessThanOrEqual(2);
      gates.shift()!();
    }
    await expect(results).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('frees the slot of a task that rejects', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});
