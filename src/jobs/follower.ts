/**
 * The job follower (issue 29 items 1-2): follows every open job of the followed owners (or of everyone) so that
 * completions are observed — recorded final by the store, events written, streams told — with nobody calling
 * get_job. It reads through the shared poller (`poller.next`), so a job is never read faster than the poller's
 * pace, and in a fleet the poller's lease decides which instance goes to the platform (the others serve the
 * store's observation).
 *
 * Every `scanMs` it lists the store's open records (outcome `submitted`, status `submitted`/`processing`, created
 * within `maxAgeMs`) of the followed owners and starts one watch per job not yet watched; a watch loops
 * `poller.next` until the job is terminal (or the platform answers a definitive `unknown`), or nobody follows its
 * owner any more.
 */
import type { Logger } from '../log.js';
import { outsideTrace } from '../telemetry/traces.js';
import { isPollable, jobKey, recordRef } from './handle.js';
import type { Poller } from './poller.js';
import type { JobFilter, JobRecord } from './store.js';

/** What the follower reads of the store: the open records. */
export interface FollowerStore {
  list(filter?: JobFilter): Promise<JobRecord[]>;
}

export interface FollowerOptions {
  store: FollowerStore;
  poller: Poller;
  log: Logger;
  /** How often the store is listed for new open jobs; default the poller's pace (its least interval). */
  scanMs?: number;
  /**
   * Jobs created longer ago than this are not followed (a job the platform never ends would otherwise be read
   * for ever); default 3 days, far above the platform's longest renders (minutes to hours).
   */
  maxAgeMs?: number;
  /** Most open jobs listed per scan (per followed owner); default 1,000. */
  limit?: number;
  now?: () => number;
}

export interface Follower {
  /** Follows every open job of `owner` from now on; returns the unfollow (reference counted). */
  follow(owner: string): () => void;
  /** Follows every open job of every owner (stdio jobs too); returns the unfollow (reference counted). */
  followAll(): () => void;
  /** Stops every watch and the scan. */
  close(): void;
}

export const DEFAULT_FOLLOW_MAX_AGE_MS = 3 * 24 * 3_600_000;
const DEFAULT_LIMIT = 1_000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createFollower(opts: FollowerOptions): Follower {
  const { store, poller, log } = opts;
  const scanMs = Math.max(opts.scanMs ?? poller.paceMs, 20);
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_FOLLOW_MAX_AGE_MS;
  const limit = opts.limit ?? DEFAULT_LIMIT;
  const now = opts.now ?? Date.now;
  const owners = new Map<string, number>();
  let allCount = 0;
  /** jobKey → the watch's abort controller and owner. */
  const watches = new Map<string, { ctl: AbortController; owner: string | undefined }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let scanning: Promise<void> | undefined;
  let closed = false;

  const following = (owner: string | undefined) =>
    allCount > 0 || (owner !== undefined && (owners.get(owner) ?? 0) > 0);
  const anyone = () => allCount > 0 || owners.size > 0;

  async function openRecords(): Promise<JobRecord[]> {
    const since = new Date(now() - maxAgeMs);
    const base: JobFilter = { status: ['submitted', 'processing'], since, limit };
    if (allCount > 0) return store.list(base);
    const lists = await Promise.all([...owners.keys()].map((owner) => store.list({ ...base, owner })));
    return lists.flat();
  }

  async function watch(key: string, rec: JobRecord, ref: NonNullable<ReturnType<typeof recordRef>>) {
    const entry = watches.get(key);
    if (!entry) return;
    let seq = 0;
    try {
      for (;;) {
        const o = await poller.next(ref, seq, entry.ctl.signal);
        seq = o.seq;
        const s = o.view.status;
        if (s === 'completed' || s === 'failed' || s === 'unknown') return;
      }
    } catch (err) {
      if (!entry.ctl.signal.aborted && !closed)
        log.debug('follower: stopped following a job', { handle: rec.handle, error: message(err) });
    } finally {
      if (watches.get(key) === entry) watches.delete(key);
    }
  }

  async function scan(): Promise<void> {
    if (!anyone()) return;
    let recs: JobRecord[];
    try {
      recs = await openRecords();
    } catch (err) {
      log.warn('follower: could not list open jobs; trying again', { error: message(err) });
      return;
    }
    for (const rec of recs) {
      if (closed) return;
      if (rec.outcome !== 'submitted' || !following(rec.owner)) continue;
      const ref = recordRef(rec);
      if (!ref || !isPollable(ref)) continue;
      const key = jobKey(ref);
      if (watches.has(key)) continue;
      watches.set(key, { ctl: new AbortController(), owner: rec.owner });
      void watch(key, rec, ref);
    }
  }

  /** One scan at a time: a follow during a scan is picked up by the next one (`again`: right after it). */
  let again = false;
  function schedule(delay: number): void {
    if (scanning) {
      if (delay === 0) again = true;
      return;
    }
    if (closed || timer || !anyone()) return;
    timer = setTimeout(() => {
      timer = undefined;
      scanning = scan()
        .catch((err) => log.warn('follower: scan failed', { error: message(err) }))
        .finally(() => {
          scanning = undefined;
          const next = again ? 0 : scanMs;
          again = false;
          schedule(next);
        });
    }, delay);
    timer.unref?.();
  }

  function stopIfIdle(): void {
    for (const [key, w] of watches) {
      if (!following(w.owner)) {
        w.ctl.abort();
        watches.delete(key);
      }
    }
    if (anyone()) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const w of watches.values()) w.ctl.abort();
    watches.clear();
  }

  /** A reference-counted unfollow: calling it twice releases once. */
  function release(fn: () => void): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      fn();
      stopIfIdle();
    };
  }

  return {
    follow(owner) {
      owners.set(owner, (owners.get(owner) ?? 0) + 1);
      // Outside the trace of the call that asked: every later scan is the server's own work, not that call's.
      outsideTrace(() => schedule(0));
      return release(() => {
        const n = (owners.get(owner) ?? 1) - 1;
        if (n <= 0) owners.delete(owner);
        else owners.set(owner, n);
      });
    },
    followAll() {
      allCount++;
      schedule(0);
      return release(() => {
        allCount = Math.max(0, allCount - 1);
      });
    },
    close() {
      closed = true;
      owners.clear();
      allCount = 0;
      stopIfIdle();
    },
  };
}
