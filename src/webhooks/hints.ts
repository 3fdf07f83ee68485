/**
 * "Job X may have changed": what the instance that received a platform callback tells the others, so their
 * waiters wake at once too (a fleet behind a load balancer: the callback lands on any instance).
 *
 * `startHttpRuntime` uses `pubSubHints` over the store's pub/sub (PostgreSQL LISTEN/NOTIFY in a fleet); tests may
 * pass `inProcessHints()` shared by several runtimes as `HttpRuntimeHooks.hints`.
 */
import type { Logger } from '../log.js';
import type { PubSub } from '../store/pubsub.js';

export interface JobHints {
  /** Tells every instance (this one included) that the job with this `jobKey` was just read after a callback. */
  publish(jobKey: string): void;
  /** Calls `fn` with each published job key; returns the unsubscribe function. */
  subscribe(fn: (jobKey: string) => void): () => void;
}

/** The in-process default: delivered synchronously to this process's subscribers only. */
export function inProcessHints(): JobHints {
  const subs = new Set<(jobKey: string) => void>();
  return {
    publish(jobKey) {
      for (const fn of [...subs]) {
        try {
          fn(jobKey);
        } catch {
          // A subscriber's failure must not stop the others; poller.wake does not throw.
        }
      }
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

/** The channel of job hints on the shared pub/sub (src/store/pubsub.ts). */
export const JOB_HINT_CHANNEL = 'job_hint';

/**
 * A job key as a pub/sub payload: JSON, because a job key holds NUL (src/jobs/handle.ts `jobKey`), which
 * PostgreSQL refuses in a NOTIFY payload; JSON spells it `\u0000`.
 */
export function encodeHint(jobKey: string): string {
  return JSON.stringify(jobKey);
}

/** The job key in a hint payload, or undefined for anything else (whoever can NOTIFY on the database can send it). */
export function decodeHint(payload: string): string | undefined {
  try {
    const key: unknown = JSON.parse(payload);
    return typeof key === 'string' && key.length > 0 ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Hints over the store's pub/sub: PostgreSQL LISTEN/NOTIFY in a fleet, in-process on SQLite. A hint lost while an
 * instance reconnects costs nothing but latency: its waiters still poll.
 */
export function pubSubHints(pubsub: PubSub, log: Logger): JobHints {
  return {
    publish(jobKey) {
      pubsub
        .publish(JOB_HINT_CHANNEL, encodeHint(jobKey))
        // warn, not debug: a hint that never leaves this instance makes every other instance's waiters late.
        .catch((err) => log.warn('job hint not published', { error: String(err) }));
    },
    subscribe(fn) {
      return pubsub.subscribe(JOB_HINT_CHANNEL, (payload) => {
        const key = decodeHint(payload);
        if (key !== undefined) fn(key);
      });
    },
  };
}
