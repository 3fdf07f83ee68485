/**
 * PlatformHttp: the only code that touches the network. One undici Agent (keep-alive), one p-queue
 * (concurrency and rate, shared by every call including polls), a per-request timeout, GET-only retries,
 * and the rule that a job-starting POST that may have reached the server becomes SubmissionUnknownError.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type PQueue from 'p-queue';
import type { Dispatcher, FormData } from 'undici';
import type { z } from 'zod';
import {
  ConnectionError,
  mayHaveBeenAccepted,
  PlatformError,
  RateLimitError,
  SubmissionUnknownError,
  TimeoutError,
} from '../errors.js';
import { type Logger, registerSecret } from '../log.js';
import { metrics } from '../telemetry/metrics.js';
import { bindToTrace } from '../telemetry/traces.js';
import { abortError, classifyTransportError } from './failure.js';
import { annotateResponse, inRequestSpan } from './request-span.js';
import { interpret } from './response.js';
import { retryDelay, shouldRetry } from './retry.js';
import type { ApiResult } from './types.js';
import { requireUndiciCore, type UndiciCore } from './undici-core.js';

/** Spec, Limits: "default client timeout 120 s" for every call but the upscale quote. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Three GET retries: with the 8 s backoff cap a read gives up within ~15 s of backoff, inside a 45 s wait. */
export const DEFAULT_MAX_RETRIES = 3;
/** The spec shows no rate or concurrency limits; 4 in flight is polite and enough for a few polls plus a submit. */
export const DEFAULT_CONCURRENCY = 4;

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
let pQueue: Promise<typeof import('p-queue')> | undefined;

/**
 * undici is ~110 CommonJS modules: importing it cost 65-120 ms and 7-18 MiB of RSS at start-up (measured
 * with `performance.now()` and `process.memoryUsage()` around the import, Node 20, after and before the SDK),
 * before the first tools/list, which needs no network. So it (and p-queue) load on the first request, once;
 * a failed load is retried by the next request.
 */
export function loadUndici(): Promise<Undici> {
  undici ??= import('undici').catch((err: unknown) => {
    undici = undefined;
    throw err;
  });
  return undici;
}

let core: Promise<UndiciCore> | undefined;

/** The Agent and request API alone (src/client/undici-core.ts): what every request but an upload needs. */
function loadCore(): Promise<UndiciCore> {
  core ??= Promise.resolve()
    .then(requireUndiciCore)
    .catch((err: unknown) => {
      core = undefined;
      throw err;
    });
  return core;
}

function loadPQueue(): Promise<typeof import('p-queue')> {
  pQueue ??= import('p-queue').catch((err: unknown) => {
    pQueue = undefined;
    throw err;
  });
  return pQueue;
}

/** A response header as fetch's `headers.get` gives it: repeated values joined with ", ", absent = null. */
function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(', ') : v;
}

export interface PlatformHttpOptions {
  /** Base URL including the platform prefix, no trailing slash needed. */
  baseUrl: string;
  apiKey: string;
  /** Tests pass an undici MockAgent; otherwise we own a keep-alive Agent and close it in `close()`. */
  dispatcher?: Dispatcher;
  concurrency?: number;
  /** With `interval`: at most `intervalCap` requests start per `interval` ms (p-queue). */
  intervalCap?: number;
  interval?: number;
  timeoutMs?: number;
  maxRetries?: number;
  logger?: Logger;
  /** Jitter source in [0, 1); tests inject it. */
  random?: () => number;
  /** Backoff sleep; tests inject it to observe delays without waiting. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RequestSpec<T> {
  method: 'GET' | 'POST';
  /** Path after the base URL, starting with `/`. Never carries the key. */
  path: string;
  /** `path` with its ids as `{names}` (spans name the route, not one job), when it carries any. */
  route?: string;
  query?: Record<string, string | undefined>;
  json?: unknown;
  /** Multipart body (undici's FormData: undici's fetch only recognises its own class). */
  form?: FormData;
  schema: z.ZodType<T>;
  envelope: boolean;
  /** A POST that can start a (paid) job. */
  submit: boolean;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

export class PlatformHttp {
  private readonly baseUrl: string;
  /** The platform's host, for spans (never the URL: its path may carry ids). */
  private readonly host: string;
  private readonly apiKey: string;
  /** Injected, or our own keep-alive Agent created on the first request (see `loadUndici`). */
  private dispatcher: Dispatcher | undefined;
  private readonly ownsDispatcher: boolean;
  private closed = false;
  /** Created with the first request (p-queue is loaded on demand too). */
  private queue: PQueue | undefined;
  private queueReady: Promise<PQueue> | undefined;
  private readonly queueOptions: ConstructorParameters<typeof PQueue>[0];
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly logger: Logger | undefined;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: PlatformHttpOptions) {
    registerSecret(opts.apiKey);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.host = URL.canParse(this.baseUrl) ? new URL(this.baseUrl).hostname : '';
    this.apiKey = opts.apiKey;
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher;
    this.queueOptions = {
      concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
      ...(opts.intervalCap !== undefined && opts.interval !== undefined
        ? { intervalCap: opts.intervalCap, interval: opts.interval }
        : {}),
    };
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.logger = opts.logger;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? ((ms, signal) => sleepFor(ms, undefined, { signal }));
  }

  /**
   * Sends one logical request: queued, timed out, retried (GETs only) and validated.
   * @throws ApiError subclass for a definitive error answer (4xx, or 5xx on a non-submit request).
   * @throws SubmissionUnknownError when a submit POST may have reached the server without a clear answer.
   * @throws ConnectionError / TimeoutError / MalformedResponseError for other failures.
   * @throws the caller's abort reason (an AbortError) when `signal` aborts; for a submit POST that was
   *   already on the wire, SubmissionUnknownError instead, because the job may have started.
   */
  async request<T>(spec: RequestSpec<T>): Promise<ApiResult<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.enqueue(spec, attempt);
      } catch (err) {
        if (spec.signal?.aborted && !(err instanceof PlatformError)) throw abortError(spec.signal);
        if (
          !shouldRetry({ method: spec.method, submit: spec.submit, error: err, attempt, maxRetries: this.maxRetries })
        ) {
          throw err;
        }
        const delay = retryDelay({
          attempt,
          retryAfterMs: err instanceof RateLimitError ? err.retryAfterMs : undefined,
          random: this.random,
        });
        this.logger?.debug('platform retry', {
          method: spec.method,
          path: spec.path,
          attempt: attempt + 1,
          delayMs: delay,
        });
        try {
          await this.sleep(delay, spec.signal);
        } catch {
          throw spec.signal ? abortError(spec.signal) : err;
        }
      }
    }
  }

  /**
   * Closes the Agent we own (an injected dispatcher is the caller's). In-flight requests finish; requests
   * started afterwards fail as ConnectionError(sent=false), so a late submit is never "unknown".
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsDispatcher && this.dispatcher) await this.dispatcher.close();
  }

  /** The one queue, created on first use (concurrent first requests share it). */
  private getQueue(): PQueue | Promise<PQueue> {
    if (this.queue) return this.queue;
    this.queueReady ??= loadPQueue().then(({ default: Queue }) => {
      this.queue ??= new Queue(this.queueOptions);
      return this.queue;
    });
    this.queueReady.catch(() => {
      this.queueReady = undefined;
    });
    return this.queueReady;
  }

  /** The injected dispatcher, or our Agent (created now if this is the first request). */
  private getDispatcher(u: UndiciCore): Dispatcher {
    if (!this.dispatcher) {
      // undici's own header/body timeouts (300 s by default) would cut the 420 s upscale quote short, so
      // they are off and the per-request AbortSignal is the one timeout.
      const agent = new u.Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0, connections: 16 });
      // Closed before any request: a closed Agent refuses, so this request fails as never sent, as before.
      if (this.closed) void agent.close();
      this.dispatcher = agent;
    }
    return this.dispatcher;
  }

  /**
   * Queues one attempt. The caller's signal may remove it from the queue, but once it runs, `send` alone
   * decides what an abort means (p-queue would otherwise reject with the bare abort reason, hiding that a
   * submit POST already on the wire is "unknown").
   */
  private async enqueue<T>(spec: RequestSpec<T>, attempt: number): Promise<ApiResult<T>> {
    const caller = spec.signal;
    // Bound to the caller's trace: a queued attempt is started later from another request's completion.
    const attemptOnce = bindToTrace(() => inRequestSpan(spec, this.host, attempt, () => this.send(spec, attempt)));
    let queue: PQueue;
    try {
      queue = this.queue ?? (await this.getQueue());
    } catch (err) {
      throw new ConnectionError('the request queue could not be loaded', false, undefined, { cause: err });
    }
    if (!caller) return queue.add(attemptOnce);
    caller.throwIfAborted();
    const whileQueued = new AbortController();
    let started = false;
    const onAbort = () => {
      if (!started) whileQueued.abort(caller.reason);
    };
    caller.addEventListener('abort', onAbort, { once: true });
    try {
      return await queue.add(
        () => {
          started = true;
          return attemptOnce();
        },
        { signal: whileQueued.signal },
      );
    } finally {
      caller.removeEventListener('abort', onAbort);
    }
  }

  /** One attempt on the wire. */
  private async send<T>(spec: RequestSpec<T>, attempt: number): Promise<ApiResult<T>> {
    // Our own id goes out with every request. The response's x-request-id wins when present; otherwise
    // ours is what we quote, so even a timed-out POST that never answered has an id support can trace.
    const sentId = randomUUID();
    let requestId: string = sentId;
    let u: Undici | undefined;
    let lib: UndiciCore;
    try {
      // Only an upload needs fetch and FormData, so only an upload loads the whole of undici.
      if (spec.form) u = await loadUndici();
      lib = u ?? (await loadCore());
    } catch (err) {
      // Nothing was sent: without the HTTP client no byte left this process.
      throw new ConnectionError('the HTTP client could not be loaded', false, sentId, { cause: err });
    }
    const dispatcher = this.getDispatcher(lib);
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    // One AbortController per attempt, fed by our own timer and the caller's signal, both detached in
    // `finally`. Not AbortSignal.timeout / AbortSignal.any: undici's fetch adds an abort listener to the signal
    // and never removes it, and Node keeps a timeout (or composite) signal that has a listener alive until it
    // fires, so every request's fetch state (request, response, body) stayed reachable for the whole
    // timeout, 120 s. Under 500 polled jobs that was tens of MiB of RSS (heap snapshots and GC traces of
    // the bench's waiting run); this controller is garbage as soon as the attempt ends.
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    // The clock starts at dispatch, not at enqueue: time spent waiting in our own queue is not the platform's.
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    // Like AbortSignal.timeout's timer: a pending timeout alone does not keep the process alive.
    timer.unref?.();
    const caller = spec.signal;
    const onCallerAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    const started = performance.now();
    let status: number | undefined;
    let outcome = 'ok';
    try {
      const url = new URL(this.url(spec));
      const res =
        spec.form && u
          ? await this.fetchForm(u, spec, sentId, signal, dispatcher)
          : await dispatcher.request({
              // What undici's top-level request(url, opts) passes on: origin, and the path with its query.
              origin: url.origin,
              path: url.search ? `${url.pathname}${url.search}` : url.pathname,
              method: spec.method,
              headers: this.headers(spec, sentId),
              body: spec.json !== undefined ? JSON.stringify(spec.json) : undefined,
              signal,
              // undici's `request` never follows a redirect (no redirect interceptor here): a 3xx comes back as
              // it is, so X-Api-Key never goes to the host a Location names (invariant 5).
            });
      status = res.statusCode;
      requestId = header(res.headers, 'x-request-id') || sentId;
      annotateResponse(res.statusCode, requestId);
      const text = await res.body.text();
      const data = interpret(
        { status: res.statusCode, text, retryAfter: header(res.headers, 'retry-after'), requestId },
        { schema: spec.schema, envelope: spec.envelope, submit: spec.submit },
      );
      return { data, requestId };
    } catch (err) {
      const failure = this.failure(err, spec, requestId, timeoutMs, timedOut);
      outcome = failure.name;
      throw failure;
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
      // Path only, no query: ids are not secret, but nothing in a log line needs more than the route.
      metrics.platformResponse(spec.method, spec.path, status, outcome, (performance.now() - started) / 1000);
      this.logger?.debug('platform request', {
        method: spec.method,
        path: spec.path,
        status,
        ms: Math.round(performance.now() - started),
        requestId,
        attempt,
        outcome,
      });
    }
  }

  /**
   * Multipart bodies (custom avatars, the one rare upload) still go through undici's fetch, which writes the
   * multipart boundary; every other request uses `request`. fetch is the heavier path: it keeps WeakRefs and
   * a FinalizationRegistry entry per request, which V8's minor GC treats as strong, so each request's state
   * was promoted to the old generation (the largest share of the RSS growth under 500 polled jobs, in a
   * sampling heap profile of what survived minor GCs), and it cost more CPU per status read.
   */
  private async fetchForm(
    u: Undici,
    spec: RequestSpec<unknown>,
    sentId: string,
    signal: AbortSignal,
    dispatcher: Dispatcher,
  ): Promise<{ statusCode: number; headers: Record<string, string>; body: { text(): Promise<string> } }> {
    const res = await u.fetch(this.url(spec), {
      method: spec.method,
      headers: this.headers(spec, sentId),
      body: spec.form,
      signal,
      dispatcher,
      // Never follow a redirect: fetch would carry X-Api-Key to whatever host it names (invariant 5).
      redirect: 'manual',
    });
    const headers: Record<string, string> = {};
    for (const name of ['x-request-id', 'retry-after']) {
      const v = res.headers.get(name);
      if (v !== null) headers[name] = v;
    }
    return { statusCode: res.status, headers, body: { text: () => res.text() } };
  }

  /** Maps whatever one attempt threw to the error the caller sees. */
  private failure(
    err: unknown,
    spec: RequestSpec<unknown>,
    requestId: string,
    timeoutMs: number,
    timedOut: boolean,
  ): Error {
    if (err instanceof SubmissionUnknownError) return err;
    const callerAborted = spec.signal?.aborted === true && !(err instanceof PlatformError);
    if (callerAborted && spec.signal) {
      // A cancelled submit POST was already on the wire: the job may exist, so it is "unknown", not "aborted".
      return spec.submit ? new SubmissionUnknownError(undefined, requestId) : abortError(spec.signal);
    }
    const classified =
      timedOut && !(err instanceof PlatformError)
        ? new TimeoutError(timeoutMs, requestId)
        : classifyTransportError(err, requestId, timeoutMs);
    if (spec.submit && mayHaveBeenAccepted(classified)) return new SubmissionUnknownError(classified, requestId);
    return classified;
  }

  private url(spec: RequestSpec<unknown>): string {
    const url = new URL(`${this.baseUrl}${spec.path}`);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  }

  private headers(spec: RequestSpec<unknown>, requestId: string): Record<string, string> {
    const h: Record<string, string> = {
      accept: 'application/json',
      'x-api-key': this.apiKey,
      'x-request-id': requestId,
    };
    // Multipart gets no content-type here: fetch writes it with the boundary it generated.
    if (spec.form === undefined && spec.json !== undefined) h['content-type'] = 'application/json';
    return h;
  }
}
