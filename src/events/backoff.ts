/**
 * When to try an undelivered event again (issue 29: "capped at one minute for the first hour, then longer, for a
 * bounded, configurable time").
 * - First hour after the event was queued: 1, 2, 4 … s, capped at 60 s, so a receiver back from an outage hears
 *   within a minute.
 * - After: a twelfth of the time since it was queued (5 min at 1 h, 1 h from 12 h on), capped at 1 h.
 * - Past `retryForMs`: given up (undefined).
 */
export const FIRST_HOUR_MS = 3_600_000;
export const FIRST_HOUR_CAP_MS = 60_000;
export const LATER_CAP_MS = 3_600_000;

export function nextAttemptAt(
  attempts: number,
  createdAt: number,
  now: number,
  retryForMs: number,
): number | undefined {
  const age = now - createdAt;
  if (age >= retryForMs) return undefined;
  const delay =
    age < FIRST_HOUR_MS
      ? Math.min(FIRST_HOUR_CAP_MS, 1000 * 2 ** Math.min(attempts, 16))
      : Math.min(LATER_CAP_MS, Math.max(FIRST_HOUR_CAP_MS, age / 12));
  return Math.min(now + delay, createdAt + retryForMs);
}
