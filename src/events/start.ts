/**
 * Events on in a process (issue 29): the delivery worker, and the follower following every open job so that
 * completions are observed (and their events written) with nobody reading. Called by the HTTP runtime and the
 * stdio bin when GENPLAT_EVENTS_* is set; secrets are registered for redaction before anything can log them.
 */
import { createFollower } from '../jobs/follower.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import type { PaidStep } from '../kill-steps.js';
import { type Logger, registerSecret } from '../log.js';
import type { EventsConfig } from './config.js';
import { startEventWorker } from './worker.js';

export interface EventsRuntime {
  close(): Promise<void>;
  /** One delivery round now (tests, the bench). */
  round(): Promise<number>;
}

export function startEvents(opts: {
  events: EventsConfig;
  jobs: JobStore;
  poller: Poller;
  log: Logger;
  now?: (() => number) | undefined;
  tickMs?: number | undefined;
  onStep?: ((step: PaidStep) => void) | undefined;
}): EventsRuntime {
  for (const ep of opts.events.endpoints) registerSecret(ep.secret);
  const worker = startEventWorker({
    store: opts.jobs,
    endpoints: opts.events.endpoints,
    log: opts.log,
    retryForMs: opts.events.retryForMs,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.tickMs !== undefined ? { tickMs: opts.tickMs } : {}),
    onStep: opts.onStep,
  });
  const follower = createFollower({ store: opts.jobs, poller: opts.poller, log: opts.log });
  const unfollow = follower.followAll();
  opts.log.info(`events on: ${opts.events.endpoints.length} endpoint(s); following every open job`);
  return {
    round: () => worker.round(),
    async close() {
      unfollow();
      follower.close();
      await worker.close();
    },
  };
}
