/**
 * One log line per burst (issue 19 item 3): the first of a kind of event is logged at once; the ones that
 * follow within `BURST_WINDOW_MS` are counted and reported in one summary line when the next burst starts, so
 * a flood of bad tokens or an outage costs a handful of lines, not one per request.
 */
import type { Logger } from '../log.js';

/** 60 s: the rate limiter's window (src/transports/http-limits.ts), so one summary covers one window. */
export const BURST_WINDOW_MS = 60_000;

export function burstLogger(log: Logger, now: () => number, windowMs = BURST_WINDOW_MS) {
  const bursts = new Map<string, { start: number; more: number }>();
  return function report(level: 'warn' | 'info', msg: string, fields: Record<string, unknown> = {}): void {
    const t = now();
    const b = bursts.get(msg);
    if (b && t - b.start < windowMs) {
      b.more++;
      return;
    }
    if (b && b.more > 0)
      log[level](`${msg}: ${b.more} more in the ${Math.round(windowMs / 1000)} s after the last line`);
    // One entry per distinct message (a handful of fixed strings): the map cannot grow with traffic.
    bursts.set(msg, { start: t, more: 0 });
    log[level](msg, fields);
  };
}
