/**
 * The shared poller: one state per job (`jobKey`: kind + platform id), whoever watches it and whatever
 * handle spells it.
 *
 * - A job is never read more than once per `min` interval, measured from the *end* of the previous read,
 *   so the platform never sees two status requests for a job closer than `min` (spec "Limits": poll every
 *   5-10 s), however many waits, `get_job` calls and subscriptions watch it.
 * - Concurrent askers share one in-flight read (coalescing); reads run at most `concurrency` at a time.
 * - After each read the next one is due at a jittered time in [min, max] after it, so many jobs started
 *   together do not poll in lockstep.
 * - Terminal results (completed, failed) are cached and never read again.
 * - Every read updates the job's ledger record (if one exists) and emits a change event on a new status or
 *   new outputs (subscriptions listen to it).
 * - A transient read error (after the client's own GET retries) does not fail anyone: the job stays
 *   processing with a note. A definitive 4xx (unknown id, bad key) becomes an `unknown` view with the reason.
 * - Reads are never tied to one watcher's AbortSignal: cancelling a wait stops that wait only, and never
 *   touches the job (mcp-notes 2.4).
 * - A platform callback (webhook, src/webhooks/) is only a hint: `hint` reads the job as soon as the spec's
 *   floor allows (max(now, last read + 5 s): `SPEC_MIN_READ_GAP_MS`), past the interval and the fleet lease, and
 *   wakes its waiters; `wake` (the hint heard from another instance) makes waiters here
 *   re-read now through the lease, so they normally take the store's fresh observation instead of the platform.
 */
import { randomUUID } from 'node:crypto';
import type { PlatformClient } from '../client/types.js';
import { ApiError, GenplatError } from '../errors.js';
import type { Logger } from '../log.js';
import { jobKeyColumn } from '../store/record.js';
import { metrics } from '../telemetry/metrics.js';
import { isPollable, type JobRef, jobKey, tryEncodeHandle } from './handle.js';
import { mayStillRun, warnIfAboveQuote } from './reconcile.js';
import { isTerminal, type JobView, readJob, viewFromRecord } from './status.js';
import type { JobPatch, JobRecord, JobStore } from './store.js';

/** Spec "Limits": status endpoints are polled every 5-10 seconds. */
export const DEFAULT_INTERVAL_MS = { min: 5_000, max: 10_000 } as const;
/**
 * The spec's floor between two status reads of one job (platform-api.md "Limits": every 5-10 seconds, so never
 * closer than 5 s). A callback (hint) never brings a read closer than this to the previous one (issue 19 item 5).
 */
export const SPEC_MIN_READ_GAP_MS = 5_000;
/**
 * Polls handed to the client at once. The client's own queue sends at most 4 (http.ts), so 8 keeps it fed
 * while never letting more than 4 polls queue ahead of a submit; 50 jobs still take ~13 round trips.
 */
export const DEFAULT_CONCURRENCY = 8;

/** Bounds the per-handle state map; far above any realistic number of jobs watched at once. */
const MAX_STATES = 5_000;
/** A handle not read for this long is forgotten (it is re-read once if asked again); 30 min >> max_wait_s. */
const FORGET_AFTER_MS = 30 * 60_000;

export interface PollerChange {
  /** The job's handle, or a stand-in naming its kind when no handle can carry its id (compare `key`). */
  handle: string;
  /** `jobKey` of the job: what subscribers compare. */
  key: string;
  view: JobView;
  /** Status before this read; undefined on the first read of the handle. */
  previous: JobView['status'] | undefined;
}

/** A view together with the read counter it came from (watchers wait for a newer one). */
export interface Observed {
  view: JobView;
  /** Increases with every completed read of this handle; 0 = never read. */
  seq: number;
}

export interface Poller {
  /**
   * The job's current view: cached if terminal or read less than `min` ago, else one read (shared with
   * any read already in flight). Ledger-only handles answer from the ledger.
   */
  read(ref: JobRef): Promise<Observed>;
  /**
   * Resolves with the first view newer than `seenSeq`, reading when the handle's next read is due.
   * @throws the signal's reason when `signal` aborts first (the read itself goes on for other watchers).
   */
  next(ref: JobRef, seenSeq: number, signal?: AbortSignal): Promise<Observed>;
  /**
   * A callback said this job changed: one status read at max(now, last read + floor) (past the interval and the
   * lease; concurrent and replayed hints share it), then every waiter wakes. Terminal jobs are not read again.
   */
  hint(ref: JobRef): Promise<Observed>;
  /**
   * Another instance read this job after a callback: waiters here stop sleeping and read now, through the lease
   * (so normally from the store). A job nobody here watches, or a terminal one, is left alone.
   */
  wake(key: string): void;
  /** Listens to status/output changes; returns the unsubscribe function. */
  onChange(listener: (change: PollerChange) => void): () => void;
  /** Stops pending timers; later calls reject. */
  close(): void;
  /**
   * The least time between two reads of one job (the interval's minimum): how often a watcher with nothing the
   * poller follows yet (a campaign item admitted but not sent) looks again.
   */
  readonly paceMs: number;
}

export interface PollerOptions {
  client: PlatformClient;
  jobs: JobStore;
  log: Logger;
  intervalMs?: { min: number; max: number };
  concurrency?: number;
  now?: () => number;
  /** Returns [0, 1); jitter source, injected by tests. */
  random?: () => number;
  /**
   * Least time between the end of a read and a read a hint asks for; default the smaller of `intervalMs.min`
   * and `SPEC_MIN_READ_GAP_MS` (so a test's fast poller keeps fast hints, and production keeps the spec's 5 s).
   */
  hintGapMs?: number;
  /**
   * Called once the store has recorded that a job of ours became final (completed or failed): the one place the
   * job's end is seen, in whichever process of a fleet read it (staged files are deleted there, issue 27 item 7).
   * Never awaited; its failure is its own to log.
   */
  onFinal?: ((rec: JobRecord) => void) | undefined;
}

interface HandleState {
  ref: JobRef;
  key: string;
  handle: string;
  last: JobView | undefined;
  /** When the last read finished (ms). */
  lastAt: number;
  /** When the last read started (ms); a hint is served by any read that started after it arrived. */
  startedAt: number;
  seq: number;
  /** Earliest time the next read may start. 0 = now. */
  dueAt: number;
  inflight: Promise<Observed> | undefined;
  /** The read a callback asked for, while it runs (concurrent hints share it). */
  hinted: Promise<Observed> | undefined;
  terminal: boolean;
  /** Waiters sleeping until `dueAt`: called to cut the sleep short (a hint). */
  wakers: Set<() => void>;
}

/** A 4xx other than 408/429 will answer the same way next time: report it instead of retrying for ever. */
function isDefinitive(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function sameUrls(a: readonly { url: string }[] | undefined, b: readonly { url: string }[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((o, i) => o.url === b[i]?.url);
}

/** A tiny counting semaphore: p-queue would do, but this keeps the poller free of client internals. */
function limiter(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** @throws RangeError when the interval or concurrency is not usable. */
export function createPoller(opts: PollerOptions): Poller {
  const { client, jobs, log } = opts;
  const interval = opts.intervalMs ?? DEFAULT_INTERVAL_MS;
  // The lease lasts the minimum interval (5 s by default, design.md's read budget): a job is read at most once
  // per interval by the whole fleet, not once per interval per instance. Tests with a fast poller keep theirs.
  const leaseMs = interval.min;
  const instanceId = randomUUID();
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  if (!(interval.min >= 0 && interval.max >= interval.min))
    throw new RangeError('poller interval: need 0 <= min <= max');
  if (!(concurrency >= 1)) throw new RangeError('poller concurrency must be at least 1');
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const hintGap = opts.hintGapMs ?? Math.min(interval.min, SPEC_MIN_READ_GAP_MS);
  const limit = limiter(concurrency);
  const states = new Map<string, HandleState>();
  const listeners = new Set<(c: PollerChange) => void>();
  const timers = new Set<{ timer: ReturnType<typeof setTimeout>; reject: (e: unknown) => void }>();
  let closed = false;

  function stateOf(ref: JobRef): HandleState {
    const key = jobKey(ref);
    let st = states.get(key);
    if (!st) {
      if (states.size >= MAX_STATES) prune();
      const handle = tryEncodeHandle(ref) ?? `${ref.kind}:(id not representable in a handle)`;
      st = {
        ref,
        key,
        handle,
        last: undefined,
        lastAt: 0,
        startedAt: 0,
        seq: 0,
        dueAt: 0,
        inflight: undefined,
        hinted: undefined,
        terminal: false,
        wakers: new Set(),
      };
      states.set(key, st);
    }
    return st;
  }

  /** Forgets handles nobody read for a while (a long-running HTTP server sees an open-ended stream of jobs). */
  function prune(): void {
    const cutoff = now() - FORGET_AFTER_MS;
    for (const [h, st] of states) if (!st.inflight && st.lastAt < cutoff) states.delete(h);
  }

  const observed = (st: HandleState): Observed => ({ view: st.last!, seq: st.seq });

  function emit(change: PollerChange): void {
    for (const l of listeners) {
      try {
        l(change);
      } catch (err) {
        log.warn('poller change listener failed', { error: message(err) });
      }
    }
  }

  /** Copies what a read learned into the ledger record, if we have one; never fails the read. */
  async function persist(handle: string, view: JobView, rec: JobRecord | undefined): Promise<void> {
    if (!rec || view.status === 'unknown') return;
    const patch: JobPatch = {};
    if (rec.status !== view.status) patch.status = view.status;
    if (view.outputs.length > 0 && !sameUrls(rec.outputs, view.outputs)) {
      patch.outputs = view.outputs;
    }
    if (view.reason !== undefined && view.reason !== rec.reason && view.status === 'failed') patch.reason = view.reason;
    if (
      view.creditsCharged !== undefined &&
      view.creditsCharged !== rec.creditsCharged &&
      !provisionalBelowQuote(rec, view.status, view.creditsCharged)
    ) {
      patch.creditsCharged = view.creditsCharged;
    }
    if (view.creditsRefunded !== undefined) {
      const refunded = refundWithinCharge(view.creditsRefunded, patch.creditsCharged ?? rec.creditsCharged);
      if (refunded !== view.creditsRefunded) {
        log.warn('the platform reported a refund above the charge; counted up to the charge', {
          handle,
          refunded: view.creditsRefunded,
          charged: patch.creditsCharged ?? rec.creditsCharged ?? 0,
        });
      }
      if (refunded !== rec.creditsRefunded) patch.creditsRefunded = refunded;
    }
    // originalUrl (upscale) is never patched here: the record keeps the URL saved before the upscale.
    if (Object.keys(patch).length === 0) return;
    // Once per new figure (the patch carries a charge only when it changed), not on every poll.
    if (patch.creditsCharged !== undefined) warnIfAboveQuote(log, { ...rec, ...patch });
    try {
      // Not fsynced (`observe`): the store's durability rule covers intents and outcomes, which
      // the runtime writes; a status, output URL or charge seen by a poll is platform state that the next
      // poll reads again, so losing it to a power cut costs one read, while syncing it would put a disk
      // flush (0.3 ms on the bench VM, several ms on many disks) into the answer of every read that saw a
      // change. The line is still written (and visible to other processes) before the answer.
      await jobs.observe(rec.id, patch);
      if (patch.status === 'completed' || patch.status === 'failed') opts.onFinal?.(rec);
      // Only the figures this write changed (the patch carries a charge or refund only when it changed).
      metrics.creditsReported(
        rec.tool,
        rec.owner,
        (patch.creditsCharged ?? rec.creditsCharged ?? 0) - (rec.creditsCharged ?? 0),
        (patch.creditsRefunded ?? rec.creditsRefunded ?? 0) - (rec.creditsRefunded ?? 0),
      );
    } catch (err) {
      log.warn('could not update the job ledger after a status read', { handle, error: message(err) });
    }
  }

  /**
   * What the store's record says of a pollable job another instance read within the lease: its terminal
   * view, else still running (a record of a pollable job is `submitted`/`processing` until a read ends it).
   */
  function observedView(rec: JobRecord, last: JobView | undefined): JobView {
    if (rec.status === 'completed' || rec.status === 'failed' || rec.outcome !== 'submitted') {
      return viewFromRecord(rec);
    }
    return {
      ...(last?.status === 'processing' ? last : {}),
      status: 'processing',
      outputs: rec.outputs,
      ...(rec.creditsCharged !== undefined ? { creditsCharged: rec.creditsCharged } : {}),
    };
  }

  /** True when this instance may read the job now (a store failure reads anyway: the job is never stuck). */
  async function leased(st: HandleState): Promise<boolean> {
    try {
      return await jobs.tryLease(jobKeyColumn(st.ref), leaseMs, instanceId);
    } catch (err) {
      log.warn('could not take the poller lease; reading anyway', { handle: st.handle, error: message(err) });
      return true;
    }
  }

  async function ledgerRecord(st: HandleState): Promise<JobRecord | undefined> {
    try {
      return await jobs.getByRef(st.ref);
    } catch (err) {
      log.warn('could not read the job ledger', { handle: st.handle, error: message(err) });
      return undefined;
    }
  }

  /** Every waiter of `st` sleeping until its next read stops sleeping and loops (reads or awaits the read). */
  function wakeAll(st: HandleState): void {
    for (const w of [...st.wakers]) w();
  }

  /** `force`: a callback asked for this read, so it goes to the platform even inside another holder's lease. */
  async function fetchView(st: HandleState, force = false): Promise<JobView> {
    const rec = await ledgerRecord(st);
    if (!isPollable(st.ref)) {
      return rec
        ? viewFromRecord(rec)
        : { status: 'unknown', outputs: [], reason: 'no ledger record for this handle, and it has no status endpoint' };
    }
    // A terminal state in the store (from an earlier process) is final: no need to ask the platform again.
    if (st.seq === 0 && rec && (rec.status === 'completed' || rec.status === 'failed')) return viewFromRecord(rec);
    // One read per job per interval across every process on the store (a fleet shares one database): the
    // lease holder reads, everyone else serves the store's last observation of it. A job the store does not
    // know has no shared observation to serve, so it is read (get_job by raw id adopts it after this read).
    // A forced read still takes a free lease, so the other instances serve what it learned from the store.
    const mayRead = rec ? await leased(st) : true;
    if (rec && !mayRead && !force) return observedView(rec, st.last);
    let view: JobView;
    try {
      view = await limit(() => readJob(client, st.ref));
    } catch (err) {
      if (isDefinitive(err)) {
        view = { status: 'unknown', outputs: [], reason: message(err) };
        if (err instanceof GenplatError) view.note = err.nextStep;
      } else {
        log.warn('status read failed; will retry at the next interval', { handle: st.handle, error: message(err) });
        const prev =
          st.last && st.last.status === 'processing' ? st.last : { status: 'processing' as const, outputs: [] };
        view = { ...prev, note: `the last status read failed (${message(err)}); still polling` };
      }
    }
    await persist(st.handle, view, rec);
    return view;
  }

  function startRead(st: HandleState, force = false): Promise<Observed> {
    st.startedAt = now();
    const p = (async () => {
      const view = await fetchView(st, force);
      const previous = st.last?.status;
      const changed = previous !== view.status || !sameUrls(st.last?.outputs, view.outputs);
      st.last = view;
      st.lastAt = now();
      st.seq++;
      st.terminal = isTerminal(view);
      st.dueAt = st.lastAt + interval.min + random() * (interval.max - interval.min);
      if (changed) emit({ handle: st.handle, key: st.key, view, previous });
      return observed(st);
    })();
    st.inflight = p;
    // Clear only our own promise, then hand the result on (errors here are bugs: fetchView catches reads).
    p.finally(() => {
      if (st.inflight === p) st.inflight = undefined;
    }).catch(() => {});
    return p;
  }

  /** Sleeps `ms`, or until `st` is woken (a hint), or rejects when `signal` aborts. */
  function sleep(st: HandleState, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const done = () => {
        clearTimeout(entry.timer);
        timers.delete(entry);
        st.wakers.delete(done);
        signal?.removeEventListener('abort', onAbort);
      };
      const entry = {
        timer: setTimeout(() => {
          done();
          resolve();
        }, ms),
        reject,
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      const wake = () => {
        done();
        resolve();
      };
      st.wakers.add(wake);
      timers.add(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Sleeps `ms` (a hint waiting for the floor); rejects when the poller closes. */
  function delay(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve();
        }, ms),
        reject,
      };
      timers.add(entry);
    });
  }

  /** Waits for `p` unless `signal` aborts first; `p` itself is not cancelled. */
  function race<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!signal) return p;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  const closedError = () => new Error('The poller is closed.');

  return {
    paceMs: interval.min,
    async read(ref) {
      if (closed) throw closedError();
      const st = stateOf(ref);
      if (st.last && (st.terminal || now() - st.lastAt < interval.min)) return observed(st);
      return st.inflight ?? startRead(st);
    },

    async next(ref, seenSeq, signal) {
      const st = stateOf(ref);
      for (;;) {
        if (closed) throw closedError();
        if (signal?.aborted) throw signal.reason;
        if (st.last && (st.seq > seenSeq || st.terminal)) return observed(st);
        if (st.inflight) {
          await race(st.inflight, signal);
          continue;
        }
        const wait = st.dueAt - now();
        if (wait > 0) {
          await sleep(st, wait, signal);
          continue;
        }
        await race(startRead(st), signal);
      }
    },

    async hint(ref) {
      if (closed) throw closedError();
      const st = stateOf(ref);
      if (st.terminal && st.last) return observed(st);
      if (st.hinted) return st.hinted;
      const hintedAt = now();
      const p = (async () => {
        for (;;) {
          // A read already on the wire may have left before the change the callback announces: read after it.
          if (st.inflight) await st.inflight;
          // A read that started after the callback arrived (a waiter's due read) already answers it; one in the
          // same millisecond may have left before the change, so it does not.
          if (st.seq > 0 && (st.terminal || st.startedAt > hintedAt)) return observed(st);
          // Never closer than the floor to the previous read, however many callbacks (replays) arrive:
          // the read moves to max(now, lastRead + floor).
          const wait = st.seq > 0 ? st.lastAt + hintGap - now() : 0;
          if (wait <= 0) break;
          await delay(wait);
          if (closed) throw closedError();
        }
        const o = await startRead(st, true);
        // Waiters asleep until their next due read now see the newer view.
        wakeAll(st);
        return o;
      })();
      st.hinted = p;
      try {
        return await p;
      } finally {
        if (st.hinted === p) st.hinted = undefined;
      }
    },

    wake(key) {
      const st = states.get(key);
      if (!st || st.terminal || closed) return;
      st.dueAt = 0;
      wakeAll(st);
    },

    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    close() {
      closed = true;
      for (const t of timers) {
        clearTimeout(t.timer);
        t.reject(closedError());
      }
      timers.clear();
      listeners.clear();
    },
  };
}

/**
 * A charge read while the job may still run that is below both the quote and the charge already recorded (the
 * upscale status reads 0 while preparing): it counts nothing while the job runs (the quote does), and the store's
 * spend triggers refuse it (pg-schema.ts / sqlite.ts step 7: such a figure would become the job's spend if a
 * final read carried none). Not written; the final read's charge is.
 */
function provisionalBelowQuote(rec: JobRecord, status: JobRecord['status'], charged: number): boolean {
  const quote = rec.estimate?.credits;
  if (quote === undefined || rec.outcome === 'pending') return false;
  if (!mayStillRun({ outcome: rec.outcome, status })) return false;
  return charged < quote && charged < (rec.creditsCharged ?? quote);
}

/**
 * A refund is recorded up to the charge it returns (no charge recorded: 0). The store's spend triggers refuse a
 * refund above the charge (schema 7), since it would lower the spend the ceilings read below zero for this job;
 * writing the platform's figure as it came would fail the whole status write and leave the job's final status
 * unrecorded. Fail closed: a refund we cannot match with a charge never lowers the spend.
 */
export function refundWithinCharge(refunded: number, charged: number | undefined): number {
  return Math.min(refunded, Math.max(0, charged ?? 0));
}
