import { CoalescedRun } from '../../src/common/coalesced-run';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('CoalescedRun', () => {
  it('never overlaps two runs, and runs once more for calls made during a run', async () => {
    const gates = [gate(), gate()];
    let runs = 0;
    let active = 0;
    let overlapped = false;
    const run = new CoalescedRun(async () => {
      active++;
      overlapped ||= active > 1;
      await gates[runs++].opened;
      active--;
    });

    const first = run.run();
    const second = run.run();
    const third = run.run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    gates[0].open();
    await Promise.resolve();
    gates[1].open();
    await first;
    // Two calls during the first run asked for one rerun, not two.
    expect(runs).toBe(2);
    expect(overlapped).toBe(false);

    // Once settled, a call starts afresh.
    gates.push(gate());
    const fourth = run.run();
    expect(fourth).not.toBe(first);
    gates[2].open();
    await fourth;
    expect(runs).toBe(3);
  });

  it('stops rerunning when told there is no more to do', async () => {
    const g = gate();
    let runs = 0;
    let stopping = false;
    const run = new CoalescedRun(
      async () => {
        runs++;
        await g.opened;
      },
      () => !stopping,
    );
    const first = run.run();
    void run.run();
    stopping = true;
    g.open();
    await first;
    expect(runs).toBe(1);
  });

  it('passes a failure to every caller of that run and starts afresh on the next call', async () => {
    let fail = true;
    const run = new CoalescedRun(async () => {
      await Promise.resolve();
      if (fail) throw new Error('store down');
    });
    const first = run.run();
    const joined = run.run();
    await expect(first).rejects.toThrow('store down');
    await expect(joined).rejects.toThrow('store down');
    fail = false;
    await expect(run.run()).resolves.toBeUndefined();
  });
});
