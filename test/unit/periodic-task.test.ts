import { Logger } from '@nestjs/common';
import { PeriodicTask } from '../../src/common/periodic-task';

/** A pass the test finishes by hand, counting how many run at once. */
function controlledPass() {
  const state = { started: 0, running: 0, maxRunning: 0, finish: [] as Array<() => void> };
  const pass = () =>
    new Promise<void>((resolve) => {
      state.started++;
      state.running++;
      state.maxRunning = Math.max(state.maxRunning, state.running);
      state.finish.push(() => {
        state.running--;
        resolve();
      });
    });
  return { state, pass };
}

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('draws each wait within the jitter around the interval', () => {
    const task = new PeriodicTask({ name: 't', intervalMs: 1000, jitter: 0.2 }, () => Promise.resolve());
    const random = jest.spyOn(Math, 'random');
    random.mockReturnValue(0);
    expect(task.delayWithJitter(1000)).toBe(800);
    random.mockReturnValue(0.999999);
    expect(task.delayWithJitter(1000)).toBe(1200);
    random.mockRestore();
    for (let i = 0; i < 1000; i++) {
      const d = task.delayWithJitter(1000);
      expect(d).toBeGreaterThanOrEqual(800);
      expect(d).toBeLessThanOrEqual(1200);
    }
    expect(task.delayWithJitter(0)).toBe(0);
  });

  it('waits one jittered interval before the first pass unless told otherwise', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.999999); // the longest wait: 1100 ms
    const passes = jest.fn(() => Promise.resolve());
    const task = new PeriodicTask({ name: 't', intervalMs: 1000 }, passes);
    task.start();
    await jest.advanceTimersByTimeAsync(1099);
    expect(passes).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(passes).toHaveBeenCalledTimes(1);
    await task.stop();

    const immediate = jest.fn(() => Promise.resolve());
    const first = new PeriodicTask({ name: 't', intervalMs: 1000, firstDelayMs: 0 }, immediate);
    first.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(immediate).toHaveBeenCalledTimes(1);
    await first.stop();
  });

  it('never runs a slow pass twice at once, from the timer or from runNow', async () => {
    const { state, pass } = controlledPass();
    const task = new PeriodicTask({ name: 't', intervalMs: 100, jitter: 0 }, pass);
    task.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(state.started).toBe(1);
    // Ten intervals go by while the pass is still running: no second pass starts.
    await jest.advanceTimersByTimeAsync(1000);
    const joined = task.runNow();
    expect(state.started).toBe(1);
    state.finish.shift()!();
    await joined;
    // The next pass comes one interval after the end of the slow one.
    await jest.advanceTimersByTimeAsync(99);
    expect(state.started).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(state.started).toBe(2);
    expect(state.maxRunning).toBe(1);
    state.finish.shift()!();
    await task.stop();
  });

  it('runs again at once when a pass says more work is waiting', async () => {
    let calls = 0;
    const task = new PeriodicTask({ name: 't', intervalMs: 1000, jitter: 0 }, () => Promise.resolve(++calls < 3 ? 'again' : undefined));
    task.start();
    await jest.advanceTimersByTimeAsync(1000);
    // The follow-up passes, each after a zero wait (which Node's timers make one millisecond).
    for (let i = 0; i < 2; i++) await jest.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await jest.advanceTimersByTimeAsync(999);
    expect(calls).toBe(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toBe(4);
    await task.stop();
  });

  it('logs a failed pass and tries again after the interval', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const pass = jest.fn<Promise<void>, []>().mockRejectedValueOnce(new Error('database down')).mockResolvedValue(undefined);
    const task = new PeriodicTask({ name: 'Sweep', intervalMs: 500, jitter: 0 }, pass);
    task.start();
    await jest.advanceTimersByTimeAsync(500);
    expect(warn).toHaveBeenCalledWith({ err: 'database down' }, 'Sweep failed; retrying');
    await jest.advanceTimersByTimeAsync(500);
    expect(pass).toHaveBeenCalledTimes(2);
    await task.stop();
  });

  it('stop() waits for the running pass and schedules nothing after it', async () => {
    const { state, pass } = controlledPass();
    const task = new PeriodicTask({ name: 't', intervalMs: 100, jitter: 0 }, pass);
    task.start();
    await jest.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    expect(task.stopping).toBe(true);
    await jest.advanceTimersByTimeAsync(1000);
    expect(stopped).toBe(false);
    state.finish.shift()!();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(1000);
    expect(state.started).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stop() before any pass cancels the timer', async () => {
    const passes = jest.fn(() => Promise.resolve());
    const task = new PeriodicTask({ name: 't', intervalMs: 100 }, passes);
    task.start();
    await task.stop();
    await jest.advanceTimersByTimeAsync(1000);
    expect(passes).not.toHaveBeenCalled();
    task.start();
    expect(jest.getTimerCount()).toBe(0);
  });
});
