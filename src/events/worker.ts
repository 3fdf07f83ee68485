/**
 * The delivery worker (issue 29 item 1, docs/events.md), run by every serving process when events are configured.
 * Each round, per endpoint: fan out new events into delivery rows (`skipped` when the endpoint does not take
 * them), lease the due ones (per-row lease in the store: one fleet instance delivers a given event at a time;
 * never event n+1 of a subject before n is delivered), POST each signed (post.ts), and record the outcome and a
 * log row. A leased event whose instance died is due again when its lease ends, under the same id: at least once,
 * nothing lost over restarts or kill -9.
 */
import { randomUUID } from 'node:crypto';
import type { PaidStep } from '../kill-steps.js';
import type { Logger } from '../log.js';
import type { EndpointFilter, EventStoreMethods, LeasedDelivery } from '../store/event-types.js';
import { metrics } from '../telemetry/metrics.js';
import { nextAttemptAt } from './backoff.js';
import { callerMatches, type EventEndpoint, shownEndpoint } from './config.js';
import { inDeliverySpan } from './delivery-span.js';
import { createEventPoster, type EventPoster, POST_TIMEOUT_MS } from './post.js';
import { eventsWords as W } from './wording.js';

/** 500 ms between rounds: loopback delivery lag stays well under a second; a round is a few indexed queries. */
export const DEFAULT_TICK_MS = 500;
/** A delivery's lease outlives one POST (connect + headers + body timeouts) with room: then another may take it. */
export const LEASE_MS = 3 * POST_TIMEOUT_MS;
/** Deliveries leased per endpoint per round (each a different subject: they go out in parallel). */
const BATCH = 16;
/**
 * An event's transaction commits within this long of taking its sequence number (the store's lock waits are
 * 10 s): older events below the fan-out cursor are never looked at again.
 */
const COMMIT_SETTLE_MS = 60_000;

export interface EventWorkerOptions {
  store: EventStoreMethods;
  endpoints: readonly EventEndpoint[];
  log: Logger;
  retryForMs: number;
  now?: () => number;
  tickMs?: number;
  poster?: EventPoster;
  /** Test-only: the kill step `event_posted` (after a 2xx, before it is recorded). */
  onStep?: ((step: PaidStep) => void) | undefined;
}

export interface EventWorker {
  /** One round now (what the timer does); resolves with the number of POSTs made. */
  round(): Promise<number>;
  close(): Promise<void>;
}

export function endpointFilters(endpoints: readonly EventEndpoint[]): EndpointFilter[] {
  return endpoints.map((ep) => ({
    key: ep.url,
    takes: (e) => (!ep.types || ep.types.includes(e.type)) && callerMatches(ep.callers, e.owner),
  }));
}

/** The type and owner a stored payload names (what an endpoint's filter reads); unreadable: only an endpoint without a filter takes it. */
function subjectOf(payload: string): { type: string; owner: string | undefined } {
  try {
    const body = JSON.parse(payload) as { type?: unknown; data?: { owner?: unknown } };
    return {
      type: typeof body.type === 'string' ? body.type : '',
      owner: typeof body.data?.owner === 'string' ? body.data.owner : undefined,
    };
  } catch {
    return { type: '', owner: undefined };
  }
}

export function startEventWorker(opts: EventWorkerOptions): EventWorker {
  const { store, log } = opts;
  const now = opts.now ?? Date.now;
  const tickMs = opts.tickMs ?? DEFAULT_TICK_MS;
  const poster = opts.poster ?? createEventPoster();
  const holder = randomUUID();
  const filters = endpointFilters(opts.endpoints);
  const byKey = new Map(opts.endpoints.map((ep) => [ep.url, ep]));
  let cursor = 0;
  /** Highest seq fanned out by each round, with the wall-clock time of the round (the cursor trails it). */
  const seen: { seq: number; t: number }[] = [];
  let closed = false;
  let running: Promise<number> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const filterOf = new Map(filters.map((f) => [f.key, f]));

  async function deliver(d: LeasedDelivery): Promise<void> {
    const ep = byKey.get(d.endpoint);
    if (!ep) return;
    // The filter is checked again at sending, with this process's configuration: a row fanned out under an older
    // one (before a restart narrowed `callers`, or by another fleet instance) never reaches an endpoint that no
    // longer takes it.
    if (!filterOf.get(d.endpoint)?.takes(subjectOf(d.payload))) {
      const at = now();
      await store.recordDelivery(d, holder, {
        ok: false,
        skipped: true,
        at,
        status: undefined,
        error: W.skippedNow,
        ms: 0,
      });
      return;
    }
    const started = now();
    // Signed at the wall clock's time (receivers check it within minutes), whatever clock schedules retries.
    const r = await inDeliverySpan(d, ep.url, () => poster.post(ep.url, ep.secret, d.eventId, d.payload, new Date()));
    if (r.ok) opts.onStep?.('event_posted');
    const at = now();
    const nextAt = r.ok ? undefined : nextAttemptAt(d.attempts, d.createdAt, at, opts.retryForMs);
    if (!r.ok) {
      const fields = {
        event: d.eventId,
        endpoint: shownEndpoint(d.endpoint),
        error: r.error,
        attempts: d.attempts + 1,
      };
      if (nextAt === undefined) log.warn(W.deliveryGaveUp, fields);
      else log.info(W.deliveryFailed, { ...fields, retryAt: new Date(nextAt).toISOString() });
    }
    metrics.eventDelivery(
      r.ok ? 'delivered' : nextAt === undefined ? 'gave_up' : 'retry',
      r.ok ? Math.max(0, at - d.createdAt) / 1000 : undefined,
    );
    await store.recordDelivery(d, holder, {
      ok: r.ok,
      at,
      status: r.status,
      error: r.error,
      ms: Math.max(0, at - started),
      nextAt,
    });
  }

  async function roundOnce(): Promise<number> {
    const t = now();
    const last = await store.fanOutEvents(filters, t - opts.retryForMs, cursor, t);
    // Sequence numbers are taken before commit: an event below `last` may still commit. Only once a round's
    // highest seq is older than any transaction can stay open does the cursor move to it (wall clock).
    const wall = Date.now();
    if (last) seen.push({ seq: last.seq, t: wall });
    while (seen[0] && seen[0].t < wall - COMMIT_SETTLE_MS) cursor = Math.max(cursor, seen.shift()!.seq);
    let posts = 0;
    for (const f of filters) {
      const leased = await store.leaseDeliveries(f.key, holder, now(), LEASE_MS, BATCH);
      posts += leased.length;
      await Promise.all(leased.map((d) => deliver(d)));
    }
    return posts;
  }

  function round(): Promise<number> {
    running ??= roundOnce().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** A round that posted something is followed at once (the next event of a subject waits for the previous). */
  function schedule(delay = tickMs): void {
    if (closed) return;
    timer = setTimeout(() => {
      round()
        .then((posts) => schedule(posts > 0 ? 0 : tickMs))
        .catch((err) => {
          log.warn(W.workerFailed, { error: err instanceof Error ? err.message : String(err) });
          schedule();
        });
    }, delay);
    timer.unref?.();
  }
  schedule();

  return {
    round,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => {});
      await poster.close();
    },
  };
}
