/**
 * `waitForJobs`: watches several jobs through the shared poller until a condition holds, a deadline passes
 * or the caller cancels. Running out of time is a normal answer (the pending handles come back so the
 * agent can call again), never an error: hosts cut tool calls at ~60 s (mcp-notes 2.13).
 */
import { setMaxListeners } from 'node:events';
import { encodeHandle, type JobRef } from './handle.js';
import type { Observed, Poller } from './poller.js';
import type { JobView } from './status.js';

export interface WaitProgress {
  progress: number;
  total: number;
  message: string;
}

export interface WaitOptions {
  /** `any`: return as soon as one job settles; `all`: when every job has. */
  until: 'any' | 'all';
  maxWaitMs: number;
  signal?: AbortSignal;
  /** Called with strictly increasing `progress` values. Failures are ignored (progress is best effort). */
  onProgress?: (p: WaitProgress) => void | Promise<void>;
  now?: () => number;
  /**
   * What to call each ref in the result, by index (default: its handle). The job tools pass the handle the
   * caller can use again, which for an id no handle can carry is the record's `submission:` handle.
   */
  handles?: readonly (string | undefined)[];
}

export interface WaitResult {
  /** One entry per input ref, in input order. */
  jobs: { handle: string; view: JobView }[];
  /** True when the `until` condition held. */
  done: boolean;
  /** Handles still processing (in input order, without duplicates). */
  pending: string[];
  /** True when the caller cancelled. */
  aborted: boolean;
}

/** Progress messages at most this often, except when a job settles: 50 jobs must not flood the client. */
const PROGRESS_EVERY_MS = 1_000;
/** How many pending handles a progress message names; keeps it one short line. */
const NAMED_IN_MESSAGE = 2;

const settled = (v: JobView | undefined) => v !== undefined && v.status !== 'processing';

/**
 * Waits for the jobs. Never throws for a job's state; cancelling (`signal`) returns what is known so far
 * and never touches the jobs.
 * @throws Error only if the poller is closed underneath it.
 */
export async function waitForJobs(poller: Poller, refs: JobRef[], opts: WaitOptions): Promise<WaitResult> {
  const now = opts.now ?? Date.now;
  const start = now();
  const handles = refs.map((r, i) => opts.handles?.[i] ?? encodeHandle(r));
  const views = new Map<string, JobView>();
  const unique = [...new Set(handles)];
  const refOf = new Map(handles.map((h, i) => [h, refs[i]!]));
  const stop = new AbortController();
  // Every watcher listens on this signal; 50 of them are expected, not a leak.
  setMaxListeners(0, stop.signal);
  const onOuterAbort = () => stop.abort(opts.signal?.reason);
  if (opts.signal?.aborted) stop.abort(opts.signal.reason);
  else opts.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const count = () => unique.filter((h) => settled(views.get(h))).length;
  const conditionHolds = () => (opts.until === 'any' ? count() > 0 : count() === unique.length);

  let lastProgress = -1;
  let lastSentAt = -Infinity;
  let lastCount = -1;
  const total = unique.length * 100;
  async function progress(force: boolean): Promise<void> {
    if (!opts.onProgress) return;
    const finished = count();
    const t = now();
    if (!force && finished === lastCount && t - lastSentAt < PROGRESS_EVERY_MS) return;
    // finished*100 plus up to 99 for elapsed time: both parts only grow, so the sum never goes back.
    const frac = Math.min(1, (t - start) / Math.max(1, opts.maxWaitMs));
    const value = Math.min(total, finished * 100 + Math.floor(frac * 99));
    if (value <= lastProgress) return;
    lastProgress = value;
    lastSentAt = t;
    lastCount = finished;
    const open = unique.filter((h) => !settled(views.get(h)));
    const named = open.slice(0, NAMED_IN_MESSAGE).map((h) => `${h} ${views.get(h)?.status ?? 'processing'}`);
    const more = open.length > NAMED_IN_MESSAGE ? ` (+${open.length - NAMED_IN_MESSAGE} more)` : '';
    const message = `${finished}/${unique.length} done${named.length ? `; ${named.join(', ')}${more}` : ''}`;
    try {
      await opts.onProgress({ progress: value, total, message });
    } catch {
      // Best effort: a lost progress notification must not end the wait.
    }
  }

  let wake: () => void = () => {};
  const changed = () => wake();

  async function watch(handle: string): Promise<void> {
    const ref = refOf.get(handle)!;
    let o: Observed = await poller.read(ref);
    for (;;) {
      views.set(handle, o.view);
      changed();
      if (settled(o.view)) return;
      o = await poller.next(ref, o.seq, stop.signal);
    }
  }

  const watchers = unique.map((h) =>
    watch(h).catch((err) => {
      if (!stop.signal.aborted) throw err;
    }),
  );
  let failure: unknown;
  const failed = new Promise<void>((resolve) => {
    Promise.all(watchers).catch((err) => {
      failure = err;
      resolve();
    });
  });

  const deadline = start + opts.maxWaitMs;
  const abortedP = new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    else stop.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await progress(true);
    while (!conditionHolds() && !stop.signal.aborted && failure === undefined) {
      const left = deadline - now();
      if (left <= 0) break;
      // Wake on any job update, the deadline, a progress tick, cancellation or a poller failure.
      await Promise.race([
        new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, Math.min(left, PROGRESS_EVERY_MS));
        }),
        failed,
        abortedP,
      ]);
      clearTimeout(timer);
      await progress(false);
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
    const aborted = opts.signal?.aborted ?? false;
    if (!aborted) stop.abort(new Error('wait finished'));
  }
  if (failure !== undefined) throw failure;
  if (!(opts.signal?.aborted ?? false)) await progress(true);

  return {
    jobs: handles.map((handle) => ({
      handle,
      view: views.get(handle) ?? { status: 'processing', outputs: [], note: 'not read yet when the wait ended' },
    })),
    done: conditionHolds(),
    pending: unique.filter((h) => !settled(views.get(h))),
    aborted: opts.signal?.aborted ?? false,
  };
}
