/**
 * A provider read that failed is not retried by every request that needs it (issue 19 item 3): while the
 * identity provider is down, its discovery document and key set are asked for once per `OUTAGE_WINDOW_MS`, and
 * every request in between gets the remembered error at once (a 500: our outage, never a 401).
 */

/**
 * 30 s: jose's own key-set `cooldownDuration` (the least time between two JWKS reloads), so a provider in
 * trouble sees at most one read of each document per 30 s from us, whatever the traffic.
 */
export const OUTAGE_WINDOW_MS = 30_000;

export interface OutageMemo {
  /** Throws the remembered failure while its window lasts. */
  check(): void;
  /** Remembers `err` as the failure of this read until the window ends. */
  failed(err: unknown): void;
  /** A later success forgets the failure. */
  recovered(): void;
}

export function outageMemo(now: () => number, windowMs = OUTAGE_WINDOW_MS): OutageMemo {
  let last: { err: unknown; until: number } | undefined;
  return {
    check() {
      if (last && last.until > now()) throw last.err;
      last = undefined;
    },
    failed(err) {
      last = { err, until: now() + windowMs };
    },
    recovered() {
      last = undefined;
    },
  };
}
