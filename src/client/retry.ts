/**
 * The retry policy as pure functions, so the whole matrix is unit-tested without a network.
 *
 * Rule (design.md invariant 2): only GETs are retried. A POST is never retried, whatever the failure —
 * not on 429, not on "connection refused". Some POSTs could be proven safe to resend, but the simplest
 * rule that is provably safe for a paid API is "never", and a caller can always call again.
 */
import { ApiError, ConnectionError, MalformedResponseError, RateLimitError, TimeoutError } from '../errors.js';

/** First backoff ceiling; the same order as ky and the openai SDK (0.5 s). */
export const RETRY_BASE_MS = 500;
/** Backoff ceiling: keeps three GET retries well inside wait_for_jobs' 45 s default budget. */
export const RETRY_CAP_MS = 8_000;
/**
 * The longest `Retry-After` we wait for. Longer asks are not retried: waiting less than asked would only
 * earn another 429, and waiting longer would overrun the host's ~60 s tool timeout. The agent is told how
 * long to wait instead (RateLimitError.nextStep).
 */
export const RETRY_AFTER_CAP_MS = 30_000;

export interface RetryDecision {
  method: 'GET' | 'POST';
  submit: boolean;
  error: unknown;
  /** 0-based index of the attempt that just failed. */
  attempt: number;
  maxRetries: number;
}

/** True for failures a GET may retry: 408, 429, 5xx, connection errors, timeouts, an unreadable body. */
export function isTransient(error: unknown): boolean {
  if (error instanceof RateLimitError) {
    return error.retryAfterMs === undefined || error.retryAfterMs <= RETRY_AFTER_CAP_MS;
  }
  if (error instanceof ApiError) return error.status === 408 || error.status >= 500;
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  // A body that was not JSON at all is a transport glitch (truncation, a proxy page); a body of the wrong
  // shape is deterministic and would fail the same way again.
  if (error instanceof MalformedResponseError) return error.unparseable;
  return false;
}

/**
 * Whether to send the same request again.
 * @returns false for every POST (job-starting or not), for definitive answers, and once `maxRetries` retries were made.
 */
export function shouldRetry({ method, submit, error, attempt, maxRetries }: RetryDecision): boolean {
  if (method !== 'GET' || submit) return false;
  if (attempt >= maxRetries) return false;
  return isTransient(error);
}

/**
 * Delay before retry number `attempt + 1`: the server's `Retry-After` when given (capped), otherwise
 * "full jitter" backoff, uniformly random in [0, min(cap, base * 2^attempt)) (AWS architecture blog,
 * "Exponential Backoff And Jitter"), so many waiting clients do not retry in lockstep.
 * @param random returns a number in [0, 1); injected by tests.
 */
export function retryDelay({
  attempt,
  retryAfterMs,
  random = Math.random,
}: {
  attempt: number;
  retryAfterMs?: number | undefined;
  random?: () => number;
}): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, RETRY_AFTER_CAP_MS);
  }
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

/**
 * Parses a `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 section 10.2.3).
 * @returns milliseconds from `now` (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // An HTTP date always names its day and month; without letters, Date.parse would read "-5" as a year.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
