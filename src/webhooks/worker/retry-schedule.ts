/** Delay before retry number `retry` (1-based) from the configured schedule, with ±10 % jitter so endpoints are not hit in lockstep. */
export function retryDelayMs(delays: number[], retry: number, random: () => number = Math.random): number {
  if (!delays.length) return 0;
  const base = delays[Math.min(Math.max(retry, 1), delays.length) - 1];
  return Math.max(0, Math.round(base * (0.9 + 0.2 * random())));
}

/** A receiver's Retry-After (seconds or HTTP date) in milliseconds, or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The scheduled delay, stretched to honour Retry-After but never past the longest configured delay (the cap). */
export function nextDelayMs(delays: number[], retry: number, retryAfterMs?: number): number {
  const scheduled = retryDelayMs(delays, retry);
  if (retryAfterMs === undefined) return scheduled;
  const cap = Math.max(0, ...delays);
  return Math.max(scheduled, Math.min(retryAfterMs, cap));
}
