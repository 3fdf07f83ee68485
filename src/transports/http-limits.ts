/**
 * Per-caller rate limiting for the HTTP transport (the body limit is the SDK adapter's `maxRequestBodySize`).
 */

/** 1 MiB: the largest real request (a tool call with a long script or prompt) is a few KiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/**
 * Slack-signed bodies are read before their signature can be checked; this many at once at most (each up to the
 * body limit: 32 MiB in all), so a flood of unsigned slow bodies cannot grow memory without bound. Slack sends one
 * request per person's action, far below this on one instance.
 */
export const MAX_UNVERIFIED_READS = 32;

/**
 * A fixed one-minute window per key. Coarser than a token bucket, but a burst of at most 2× the limit at a
 * window edge is harmless here: the limit exists to stop runaway loops, not to shape traffic.
 */
export function createRateLimiter(perMinute: number, now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Counts one request; returns 0 when allowed, else the seconds until the window resets (Retry-After). */
    take(key: string): number {
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= 60_000) {
        // Forget finished windows so one-off keys (failed-auth addresses) do not accumulate.
        if (windows.size > 10_000) for (const [k, v] of windows) if (t - v.start >= 60_000) windows.delete(k);
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      if (w.count <= perMinute) return 0;
      return Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000));
    },
  };
}
