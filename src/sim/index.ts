/**
 * The sandbox simulator: a faithful in-process implementation of the platform API on 127.0.0.1, used by
 * `--sandbox`, the demo and the tests. See design.md section 6 and the conventions in `public-url.ts`,
 * `routes/products.ts`, `routes/shoppable.ts` and `jobs.ts`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sandboxVendors, type VendorMap } from '../config.js';
import { StateError } from '../jobs/state-error.js';
import { registerSecret } from '../log.js';
import { AccountStore, Projects } from './accounts.js';
import { type FaultSpec, FaultStore } from './faults.js';
import { Jobs, type TimingOption, timingFrom } from './jobs.js';
import { type FetchedMedia, MediaFetcher } from './media-fetch.js';
import { openSimState, type SimStateFile } from './persist.js';
import { isLoopbackUrl, isPublicUrl } from './public-url.js';
import { type LogEntry, RequestLog } from './request-log.js';
import { allRoutes } from './routes/index.js';
import { onJobTerminal } from './routes/library.js';
import { customVoice, SANDBOX_CUSTOM_VOICE_ID, seedData, seedOwnedVideos } from './seed.js';
import { API_PREFIX, createHandler } from './server.js';
import { metaOf, restoreRows, toRows } from './snapshot.js';
import type { JobEngine, JobScript, OwnedVideo, SimAccount, SimContext, SimData } from './types.js';

export type { FaultSpec } from './faults.js';
export type { LogEntry } from './request-log.js';

export interface SimulatorOptions {
  /** 0/undefined = a random free port. */
  port?: number;
  /** Default sandboxVendors({}). */
  vendors?: VendorMap;
  /** test (default): jobs 20 ms, slow ops 10 ms; demo: jobs 8-15 s, slow ops 3 s. */
  timing?: TimingOption;
  /** The sandbox key accepted (default 'sk-sandbox-' + random hex). */
  apiKey?: string;
  /** Displayed credits of the sandbox account (default 100000). */
  startingCredits?: number;
  /** Tests: let webhook_url point at 127.0.0.1 (the real platform requires public URLs). */
  allowLoopbackWebhooks?: boolean;
  /**
   * Tests: fetch the loopback media URLs of billable POSTs as the platform fetches media (src/sim/media-fetch.ts),
   * and accept them as public; what arrived is in `fetched`.
   */
  fetchMedia?: boolean;
  /**
   * `--sandbox` (issue 29 item 7): the loopback origins whose media URLs are fetched and accepted, exactly (the
   * server's own staging origin, added once its listener has a port); every other loopback URL stays non-public,
   * as on the platform. A live set: read on each request. Ignored with `fetchMedia` (which takes every loopback).
   */
  mediaOrigins?: ReadonlySet<string>;
  /**
   * How long after a job's terminal state its callback is POSTed (ms, default 0): the platform's delivery
   * delay, which the bench compares the webhook completion lag with.
   */
  webhookDelayMs?: number;
  /** Called after each request under the prefix is answered (the CLI prints them to stderr). */
  onRequest?: (entry: LogEntry) => void;
  /**
   * Where the sandbox keeps its state across restarts (a `node:sqlite` file, persist.ts). Undefined: in memory
   * only, as every in-process test simulator runs.
   */
  stateFile?: string;
  /** Empty `stateFile` before starting (`--reset-sandbox`, `sim --reset`). */
  resetState?: boolean;
}

/** How the simulator keeps its state (see `SimulatorOptions.stateFile`). */
export type SimPersistence =
  | { mode: 'memory' }
  /** `restoredJobs`: how many jobs the file brought back. */
  | { mode: 'file'; path: string; restoredJobs: number }
  /** Another live process owns the file: this simulator runs in memory and forgets its jobs when it stops. */
  | { mode: 'busy'; path: string };

export interface Simulator {
  /** e.g. http://127.0.0.1:PORT/api (the platform prefix is /api). */
  baseUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  apiKey: string;
  accounts: { add(a: Partial<SimAccount> & { key: string }): SimAccount; get(key: string): SimAccount | undefined };
  faults: { add(f: FaultSpec): void; clear(): void };
  log: { entries(): LogEntry[]; count(f?: { method?: string; path?: string | RegExp }): number; clear(): void };
  /** With `fetchMedia`: every media file the simulator fetched (field, path, size, sha256, sniffed type). */
  fetched: { entries(): FetchedMedia[] };
  jobs: JobEngine & { scriptNext(s: JobScript, count?: number): void; clearScripts(): void };
  ownedVideos: Map<string, OwnedVideo>;
  vendors: VendorMap;
  /** Seeded catalog and per-account custom avatars/voices (tests read ids from it). */
  data: SimData;
  persistence: SimPersistence;
  close(): Promise<void>;
}

/**
 * How long a saved sandbox may hold the effects of reads (settling a finished job, an upscale refund) before
 * writing them: 1 s. Writing serializes the whole state (~10 ms at 2,000 jobs), and a poller's reads need not pay
 * that each. What a kill loses here is re-derived from the clock on the next read: the file always holds one
 * consistent earlier moment. POSTs are written before they are answered.
 */
const READ_SAVE_DELAY_MS = 1000;

/** How long a content-library callback may take before it is given up (delivery is not guaranteed). */
const WEBHOOK_TIMEOUT_MS = 5000;

/**
 * Starts the simulator on 127.0.0.1.
 * @throws StateError when `stateFile` cannot be used; or, with `resetState`, when another process owns it.
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const vendors = opts.vendors ?? sandboxVendors({});
  const timing = timingFrom(opts.timing);
  const opened = opts.stateFile ? openSimState(opts.stateFile, { reset: opts.resetState ?? false }) : undefined;
  if (opened?.kind === 'busy' && opts.resetState) {
    throw new StateError(
      opened.path,
      'is in use by another running genplat-mcp (a sandbox server or `genplat-mcp sim`)',
      'Stop that process, then start again with the reset flag.',
    );
  }
  const file: SimStateFile | undefined = opened?.kind === 'open' ? opened.file : undefined;
  const saved = file ? metaOf(file.loaded) : undefined;
  const apiKey = opts.apiKey ?? saved?.apiKey ?? `sk-sandbox-${randomBytes(16).toString('hex')}`;
  // The sandbox key is harmless, but logs and results must not learn to carry keys of any kind.
  registerSecret(apiKey);
  const accounts = new AccountStore();
  const projects = new Projects();
  const faults = new FaultStore();
  const log = new RequestLog();
  const ownedVideos = new Map<string, OwnedVideo>();
  let origin = '';
  const mediaUrl = (kind: 'png' | 'mp4' | 'mp3', name?: string) =>
    `${origin}/media/${name ?? randomBytes(8).toString('hex')}.${kind}`;
  let ctx: SimContext | undefined;
  // Set once the state is restored: saving before that would overwrite the file with the bare seed.
  let save: () => void = () => {};
  let pendingSave: NodeJS.Timeout | undefined;
  const saveSoon = () => {
    if (pendingSave) return;
    pendingSave = setTimeout(() => {
      pendingSave = undefined;
      save();
    }, READ_SAVE_DELAY_MS);
    // Never keeps a process alive on its own; close() writes what is pending.
    pendingSave.unref();
  };
  const jobs = new Jobs({
    timing,
    mediaUrl,
    ownedVideos,
    projects,
    onTerminal: (job, state) => {
      if (ctx) onJobTerminal(job, state, ctx);
      saveSoon();
    },
  });
  const pendingWebhooks = new Set<Promise<void>>();
  // Aborted at close: callbacks still waiting out `webhookDelayMs` are dropped (delivery is not guaranteed).
  const closing = new AbortController();

  // Which loopback media URLs are fetched for real (media-fetch.ts) and so count as public.
  const fetchesLoopback = (url: string): boolean =>
    isLoopbackUrl(url) && (opts.fetchMedia === true || originListed(url, opts.mediaOrigins));
  const fetching = opts.fetchMedia === true || opts.mediaOrigins !== undefined;
  const fetcher = new MediaFetcher(() => origin, fetchesLoopback);
  const handler = createHandler({
    routes: allRoutes,
    accounts,
    faults,
    log,
    ctx: () => {
      if (!ctx) throw new Error('simulator context used before the server listened');
      return ctx;
    },
    onLog: opts.onRequest,
    ...(fetching ? { fetchMedia: (json: unknown) => fetcher.fetchAll(json) } : {}),
    afterRun: (method) => (method === 'POST' ? save() : saveSoon()),
  });
  const server = createServer(handler.listener);
  try {
    await listenPreferring(server, opts.port, saved?.port);
  } catch (err) {
    file?.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;

  // Media URLs inside the seed need the origin, so seeding waits for the port.
  const data = seedData(mediaUrl);
  const sandbox = accounts.add({
    key: apiKey,
    credits: opts.startingCredits ?? 100_000,
    subscription: 'paid',
    features: { customAvatar: true, dedicatedFamily: true },
  });
  data.customVoices.set(sandbox.key, [customVoice(mediaUrl, SANDBOX_CUSTOM_VOICE_ID, 'My cloned voice')]);
  for (const v of seedOwnedVideos(sandbox.key, mediaUrl)) {
    ownedVideos.set(v.videoId, v);
    projects.add(sandbox.key, v.projectId);
  }

  ctx = {
    vendors,
    jobs,
    charge: (account, credits, status) => accounts.charge(account, credits, status),
    refund: (account, credits) => accounts.refund(account, credits),
    mediaUrl,
    isPublicUrl: (url, o) => fetchesLoopback(url) || isPublicUrl(url, origin, o),
    isWebhookUrl: (url, o = {}) => {
      if (o.httpsOnly && !url.startsWith('https:') && !(opts.allowLoopbackWebhooks && isLoopbackUrl(url))) {
        return false;
      }
      if (opts.allowLoopbackWebhooks && isLoopbackUrl(url)) return true;
      // The simulator's own origin is "public" for media, but nothing there receives callbacks.
      return url.startsWith(`${origin}/`) ? false : isPublicUrl(url, origin);
    },
    projects,
    data,
    origin,
    ownedVideos,
    sendWebhook: (url, payload) => {
      const p = delay(opts.webhookDelayMs ?? 0, closing.signal)
        .then(() =>
          fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'genplat-sim-webhook/1' },
            body: JSON.stringify(payload),
            signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
          }),
        )
        .then((r) => r.arrayBuffer())
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => pendingWebhooks.delete(p));
      pendingWebhooks.add(p);
    },
    slowOpMs: timing.slowOpMs,
  };

  let persistence: SimPersistence = { mode: 'memory' };
  if (opened?.kind === 'busy') persistence = { mode: 'busy', path: opened.path };
  if (file) {
    const stores = { accounts, projects, jobs, ownedVideos, data };
    const restoredJobs = restoreRows(stores, file.loaded, origin);
    persistence = { mode: 'file', path: file.path, restoredJobs };
    let warned = false;
    save = () => {
      try {
        file.save(toRows(stores, { apiKey, port }, origin));
      } catch (err) {
        // The sandbox keeps serving: a full disk must not fail its requests. Said once, not per request.
        if (!warned) process.stderr.write(`[genplat-sim] ${String(err)}; the sandbox may forget recent jobs\n`);
        warned = true;
      }
    };
    save();
  }

  let closed: Promise<void> | undefined;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    origin,
    apiKey,
    accounts: { add: (a) => accounts.add(a), get: (k) => accounts.get(k) },
    faults: { add: (f) => faults.add(f), clear: () => faults.clear() },
    log: { entries: () => log.entries(), count: (f) => log.count(f), clear: () => log.clear() },
    fetched: { entries: () => fetcher.entries() },
    jobs,
    ownedVideos,
    vendors,
    data,
    persistence,
    close() {
      closed ??= (async () => {
        jobs.close();
        handler.close();
        closing.abort();
        await Promise.allSettled([...pendingWebhooks]);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        clearTimeout(pendingSave);
        save();
        save = () => {};
        file?.close();
      })();
      return closed;
    },
  };
}

/** Resolves after `ms`, or rejects at once when `signal` aborts (a dropped callback). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A saved sandbox tries its previous port first (when no port is asked for), so the media URLs it handed out
 * before the restart still load; if that port is taken now, any free port.
 */
async function listenPreferring(server: Server, asked: number | undefined, previous: number | undefined) {
  if (asked === undefined && previous !== undefined && previous > 0) {
    try {
      await listen(server, previous);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  await listen(server, asked ?? 0);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the simulator is never reachable from the network.
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** True when `url`'s origin is one of `origins` (the sandbox's staging origin). */
function originListed(url: string, origins: ReadonlySet<string> | undefined): boolean {
  if (!origins || origins.size === 0) return false;
  try {
    return origins.has(new URL(url).origin);
  } catch {
    return false;
  }
}
