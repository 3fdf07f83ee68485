/**
 * Failed authentications per client address (issue 19 item 3), consulted BEFORE a token is verified: an
 * address that presented `AUTH_FAILURES_PER_MIN` refused tokens within a minute is answered 429 with
 * Retry-After without any request to the identity provider (introspection, key set, discovery), so nobody can
 * make us hammer the provider, or guess static tokens at speed.
 *
 * Only a refused token counts: a request without one (hosts probe once for the challenge) and a provider
 * outage (our fault) do not. A token already known good (src/auth/verify-cache.ts) still passes a throttled
 * address: a real caller behind the same NAT as a guessing loop keeps working.
 */

/**
 * 10 per minute: a person re-pasting a token or a host retrying a stale one before refreshing fails a few
 * times; a guessing or flooding loop fails hundreds of times. The reviewer's flood of 40 made-up tokens then
 * costs the provider at most 10 requests a minute per address.
 */
export const AUTH_FAILURES_PER_MIN = 10;
/** The window of the count (one minute, as the per-caller rate limit of src/transports/http-limits.ts). */
const WINDOW_MS = 60_000;
/** Bounds the map under a flood from many addresses; finished windows are dropped first. */
const MAX_ADDRESSES = 10_000;

export function authThrottle(now: () => number, perMinute = AUTH_FAILURES_PER_MIN) {
  const windows = new Map<string, { start: number; failures: number }>();
  return {
    /** Seconds until `addr` may try again (Retry-After), or 0 when it may present a token now. */
    retryAfter(addr: string): number {
      const w = windows.get(addr);
      const t = now();
      if (!w || t - w.start >= WINDOW_MS || w.failures < perMinute) return 0;
      return Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
    },
    /** Counts one refused token from `addr`. */
    failed(addr: string): void {
      const t = now();
      let w = windows.get(addr);
      if (!w || t - w.start >= WINDOW_MS) {
        if (windows.size >= MAX_ADDRESSES) {
          for (const [k, v] of windows) if (t - v.start >= WINDOW_MS) windows.delete(k);
          // Still full of live windows: forget the oldest (it is throttled less, never more, than it earned).
          if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value as string);
        }
        w = { start: t, failures: 0 };
        windows.set(addr, w);
      }
      w.failures++;
    },
  };
}
