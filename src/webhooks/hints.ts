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
 * Hints over the store's pub/sub: PostgreSQL LISTEN/NOTIFY in a fleet, in-process on SQLite. A hint lost while an
 * instance reconnects costs nothing but latency: its waiters still poll.
 */
export function pubSubHints(pubsub: PubSub, log: Logger): JobHints {
  return {
    publish(jobKey) {
      pubsub
        .publish(JOB_HINT_CHANNEL, jobKey)
        .catch((err) => log.debug('job hint not published', { error: String(err) }));
    },
    subscribe(fn) {
      return pubsub.subscribe(JOB_HINT_CHANNEL, fn);
    },
  };
}
