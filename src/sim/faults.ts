/** Fault injection: tests (and demos) make the next matching request(s) misbehave in a chosen way. */

export type FaultKind =
  | 'server_error_after_accept'
  | 'server_error'
  | 'delay'
  | 'reset'
  | 'reset_after_accept'
  | 'malformed_json'
  | 'rate_limit'
  | 'unavailable';

/**
 * Faults in what the platform charges rather than in how it answers: the job is accepted normally but charged
 * `chargeCredits` instead of its price (see overcharge.ts). Kept apart from `FaultKind`, whose every kind the
 * POST/GET fault matrix (test/invariants/fault-matrix.test.ts) covers; this one is proven by
 * test/core/reconcile.test.ts.
 */
export type ChargeFaultKind = 'overcharge';

export interface FaultSpec {
  method?: 'GET' | 'POST';
  /** Path relative to the prefix, e.g. '/video/generate'; a RegExp is tested against it. */
  path: string | RegExp;
  kind: FaultKind | ChargeFaultKind;
  /** How many matching requests it affects (default 1). */
  times?: number;
  /** 'delay': the handler runs (job accepted and charged), the response is held this long. */
  delayMs?: number;
  /** 'rate_limit': Retry-After header in seconds (default 1). */
  retryAfterS?: number;
  /** 'overcharge': displayed credits actually charged and reported for the job. */
  chargeCredits?: number;
}

/** Kinds that change how the handler charges, and leave the answer's shape alone. */
export const CHARGE_KINDS: ReadonlySet<FaultSpec['kind']> = new Set<ChargeFaultKind>(['overcharge']);

/** Kinds that run the handler first (the job is created and charged) and then replace the answer. */
export const AFTER_HANDLER_KINDS: ReadonlySet<FaultSpec['kind']> = new Set([
  'server_error_after_accept',
  'delay',
  'reset_after_accept',
  'malformed_json',
]);

interface Armed {
  spec: FaultSpec;
  left: number;
}

export class FaultStore {
  private armed: Armed[] = [];

  add(f: FaultSpec): void {
    this.armed.push({ spec: { ...f }, left: f.times ?? 1 });
  }

  clear(): void {
    this.armed = [];
  }

  /** The first armed fault matching this request, consumed once. */
  take(method: string, path: string): FaultSpec | undefined {
    const hit = this.armed.find(
      (a) =>
        a.left > 0 &&
        (a.spec.method === undefined || a.spec.method === method) &&
        (typeof a.spec.path === 'string' ? a.spec.path === path : matches(a.spec.path, path)),
    );
    if (!hit) return undefined;
    hit.left -= 1;
    this.armed = this.armed.filter((a) => a.left > 0);
    return hit.spec;
  }
}

function matches(re: RegExp, path: string): boolean {
  re.lastIndex = 0; // a /g or /y RegExp keeps state between tests
  return re.test(path);
}
