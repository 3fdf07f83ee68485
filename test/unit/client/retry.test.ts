import { describe, expect, it } from 'vitest';
import {
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  RETRY_BASE_MS,
  RETRY_CAP_MS,
  retryDelay,
  shouldRetry,
} from '../../../src/client/retry.js';
import {
  ApiError,
  ConnectionError,
  MalformedResponseError,
  RateLimitError,
  SubmissionUnknownError,
  TimeoutError,
} from '../../../src/errors.js';

const api = (status: number) => ApiError.fromResponse(status, { status: false, message: 'x' }, 'rid');
const get = (error: unknown, attempt = 0) =>
  shouldRetry({ method: 'GET', submit: false, error, attempt, maxRetries: 3 });

describe('shouldRetry', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries a GET on %i', (status) => {
    expect(get(api(status))).toBe(true);
  });

  it.each([400, 401, 402, 403, 404, 422])('does not retry a GET on %i', (status) => {
    expect(get(api(status))).toBe(false);
  });

  it('retries a GET on connection errors (sent or not), timeouts and unparseable bodies', () => {
    expect(get(new ConnectionError('ECONNRESET', true))).toBe(true);
    expect(get(new ConnectionError('ECONNREFUSED', false))).toBe(true);
    expect(get(new TimeoutError(1000))).toBe(true);
    expect(get(new MalformedResponseError('not JSON', 'rid', true))).toBe(true);
  });

  it('does not retry a schema mismatch or an unknown error', () => {
    expect(get(new MalformedResponseError('shape', 'rid'))).toBe(false);
    expect(get(new Error('bug'))).toBe(false);
  });

  it('is bounded by maxRetries', () => {
    const err = api(503);
    expect([0, 1, 2, 3, 4].map((attempt) => get(err, attempt))).toEqual([true, true, true, false, false]);
    expect(shouldRetry({ method: 'GET', submit: false, error: err, attempt: 0, maxRetries: 0 })).toBe(false);
  });

  it('does not retry a 429 whose Retry-After exceeds the cap (the agent is told to wait instead)', () => {
    expect(get(new RateLimitError(undefined, {}, 'rid', RETRY_AFTER_CAP_MS))).toBe(true);
    expect(get(new RateLimitError(undefined, {}, 'rid', RETRY_AFTER_CAP_MS + 1))).toBe(false);
  });

  it('never retries a POST, submit or not, whatever the failure', () => {
    const failures = [
      api(408),
      api(429),
      api(500),
      api(503),
      new ConnectionError('ECONNREFUSED', false),
      new ConnectionError('ECONNRESET', true),
      new TimeoutError(1000),
      new MalformedResponseError('not JSON', 'rid', true),
      new SubmissionUnknownError(undefined, 'rid'),
    ];
    for (const error of failures) {
      for (const submit of [true, false]) {
        expect(shouldRetry({ method: 'POST', submit, error, attempt: 0, maxRetries: 3 })).toBe(false);
      }
    }
  });
});

describe('retryDelay', () => {
  it('uses full jitter under an exponential ceiling', () => {
    for (const attempt of [0, 1, 2, 3, 4, 10]) {
      const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
      expect(retryDelay({ attempt, random: () => 0 })).toBe(0);
      const high = retryDelay({ attempt, random: () => 0.999999 });
      expect(high).toBeLessThan(ceiling);
      expect(high).toBeGreaterThanOrEqual(ceiling - 1);
      expect(retryDelay({ attempt, random: () => 0.5 })).toBe(Math.floor(ceiling / 2));
    }
  });

  it('never exceeds the cap, even with a misbehaving random source', () => {
    expect(retryDelay({ attempt: 50, random: () => 7 })).toBeLessThanOrEqual(RETRY_CAP_MS);
    expect(retryDelay({ attempt: 2, random: () => -1 })).toBe(0);
  });

  it('honours Retry-After up to its cap', () => {
    expect(retryDelay({ attempt: 0, retryAfterMs: 2_000, random: () => 0 })).toBe(2_000);
    expect(retryDelay({ attempt: 0, retryAfterMs: 0 })).toBe(0);
    expect(retryDelay({ attempt: 0, retryAfterMs: 120_000 })).toBe(RETRY_AFTER_CAP_MS);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP date, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
