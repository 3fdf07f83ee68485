/**
 * "Job X may have changed": what the instance that received a platform callback tells the others, so their
 * waiters wake at once too (a fleet behind a load balancer: the callback lands on any instance).
 *
 * The default is in-process only (one instance, or a fleet whose other instances simply keep polling). The
 * fleet's shared pub/sub over PostgreSQL LISTEN/NOTIFY plugs in here: pass an implementation of `JobHints` as
 * `HttpRuntimeHooks.hints` / wire it in `startHttpRuntime` (src/transports/http-main.ts).
 */

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
