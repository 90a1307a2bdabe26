import { nextDelayMs, parseRetryAfter, retryDelayMs } from '../../src/webhooks/worker/retry-schedule';

const delays = [60_000, 300_000, 1_800_000];

describe('webhook retry schedule', () => {
  it('takes the delay for each retry from the schedule, with ±10 % jitter', () => {
    expect(retryDelayMs(delays, 1, () => 0)).toBe(54_000);
    expect(retryDelayMs(delays, 1, () => 1)).toBe(66_000);
    expect(retryDelayMs(delays, 2, () => 0.5)).toBe(300_000);
    expect(retryDelayMs(delays, 9, () => 0.5)).toBe(1_800_000); // past the end: the last delay
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2025-11-22T10:00:00Z');
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('Sat, 22 Nov 2025 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('honours Retry-After up to the longest configured delay', () => {
    expect(nextDelayMs(delays, 1, 600_000)).toBe(600_000);
    expect(nextDelayMs(delays, 1, 99_999_999)).toBe(1_800_000);
    const d = nextDelayMs(delays, 2, 1_000);
    expect(d).toBeGreaterThanOrEqual(270_000); // a short Retry-After never shortens the schedule
  });
});
