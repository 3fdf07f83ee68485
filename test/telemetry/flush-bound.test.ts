/**
 * A stop waits for telemetry's last flush at most SHUTDOWN_FLUSH_MS: a collector that never answers must not hold
 * the process past its host's kill timeout (review 6 saw a 13 s stop). Fake timers: the bound is a count of timer
 * ticks here, not a measurement of the machine.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedFlush, SHUTDOWN_FLUSH_MS } from '../../src/telemetry/flush-bound.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('boundedFlush', () => {
  it('gives up a flush that never ends once the bound has passed, and not before', async () => {
    vi.useFakeTimers();
    let settled: string | undefined;
    void boundedFlush(new Promise(() => {})).then((r) => {
      settled = r;
    });
    await vi.advanceTimersByTimeAsync(SHUTDOWN_FLUSH_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('given_up');
  });

  it('answers as soon as the flush ends, and a failed flush is given up without throwing', async () => {
    expect(await boundedFlush(Promise.resolve())).toBe('flushed');
    expect(await boundedFlush(Promise.reject(new Error('collector refused')))).toBe('given_up');
  });
});
