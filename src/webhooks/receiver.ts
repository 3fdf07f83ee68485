/**
 * The webhook receiver: `POST /hooks/<ledger id>.<mac>` on the HTTP server (a `routes` entry, no bearer token:
 * the MAC in the path authenticates the URL we handed out, src/webhooks/callback-url.ts).
 *
 * A callback is only a hint. Its body is read (capped) and thrown away: it never sets a status, an output or a
 * charge. What it does is make the poller read that job's status now (`poller.hint`), which wakes every waiter
 * here, and tell the other instances (`hints.publish`), whose waiters then re-read (from the store, normally).
 * The spec shows no signature header for callbacks, so nothing in them could be trusted anyway.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPollable, jobKey, recordRef } from '../jobs/handle.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import type { ExtraRoute } from '../transports/http.js';
import { createRateLimiter } from '../transports/http-limits.js';
import { HOOK_PREFIX, verifyHookPath } from './callback-url.js';
import type { JobHints } from './hints.js';

/** The spec's only callback payload (content library) is ~0.5 KiB; 16 KiB leaves room and bounds a flood. */
export const MAX_HOOK_BODY_BYTES = 16 * 1024;
/**
 * Per job and minute. The platform POSTs once at a terminal state (platform-api.md "Events"); a few retries
 * fit. Each accepted callback may cost one status read, so this bounds what a leaked URL can make us read.
 */
export const HOOK_PER_JOB_PER_MIN = 5;
/** Per source address and minute, for requests whose URL does not verify (probing for ids). */
export const HOOK_BAD_PER_ADDR_PER_MIN = 30;

export interface WebhookReceiverDeps {
  jobs: JobStore;
  /** The store's consent key (the hook MAC's key), memoised by the caller. */
  key: () => Promise<Buffer>;
  poller: Poller;
  hints: JobHints;
  log: Logger;
  now?: () => number;
}

function answer(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  // No body: nothing about the job (or whether one exists) is told to whoever calls.
  res.writeHead(status, { 'cache-control': 'no-store', ...headers });
  res.end();
}

/** Reads and discards the body up to `max` bytes; false when it is larger (413). */
function drain(req: IncomingMessage, max: number): Promise<boolean> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > max) {
        resolve(false);
        req.pause();
      }
    });
    req.on('end', () => resolve(seen <= max));
    req.on('error', () => resolve(false));
  });
}

/** The `routes` entry answering `/hooks/…`; every other path is left to the next route. */
export function webhookReceiver(deps: WebhookReceiverDeps): ExtraRoute {
  const now = deps.now ?? Date.now;
  const perJob = createRateLimiter(HOOK_PER_JOB_PER_MIN, now);
  const perAddr = createRateLimiter(HOOK_BAD_PER_ADDR_PER_MIN, now);
  const { jobs, poller, hints, log } = deps;

  return async (req, res, path) => {
    if (!path.startsWith(HOOK_PREFIX)) return false;
    if (req.method !== 'POST') {
      answer(res, 405, { allow: 'POST' });
      return true;
    }
    const addr = `addr:${req.socket.remoteAddress ?? '?'}`;
    const ledgerId = verifyHookPath(path, await deps.key());
    if (!ledgerId) {
      const wait = perAddr.take(addr);
      answer(res, wait > 0 ? 429 : 404, wait > 0 ? { 'retry-after': String(wait) } : {});
      return true;
    }
    const wait = perJob.take(`job:${ledgerId}`);
    if (wait > 0) {
      answer(res, 429, { 'retry-after': String(wait) });
      return true;
    }
    if (!(await drain(req, MAX_HOOK_BODY_BYTES))) {
      answer(res, 413, { connection: 'close' });
      return true;
    }
    const rec = await jobs.get(ledgerId);
    if (!rec) {
      answer(res, 404);
      return true;
    }
    const ref = recordRef(rec);
    // Answered before the read: the platform's delivery must not wait on our status request (up to 120 s).
    answer(res, 202);
    if (!ref || rec.outcome !== 'submitted' || !isPollable(ref)) {
      // Not settled yet (the callback beat our own write of the job id) or nothing to read: polling covers it.
      log.debug('webhook for a job without a readable platform id; ignored', { ledger: ledgerId });
      return true;
    }
    poller
      .hint(ref)
      .then(() => hints.publish(jobKey(ref)))
      .catch((err) => log.warn('status read after a webhook failed', { ledger: ledgerId, error: String(err) }));
    return true;
  };
}
