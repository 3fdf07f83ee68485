/**
 * PlatformHttp: the only code that touches the network. One undici Agent (keep-alive), one p-queue
 * (concurrency and rate, shared by every call including polls), a per-request timeout, GET-only retries,
 * and the rule that a job-starting POST that may have reached the server becomes SubmissionUnknownError.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import PQueue from 'p-queue';
import { Agent, type Dispatcher, type FormData, fetch } from 'undici';
import type { z } from 'zod';
import { mayHaveBeenAccepted, PlatformError, RateLimitError, SubmissionUnknownError, TimeoutError } from '../errors.js';
import { type Logger, registerSecret } from '../log.js';
import { abortError, classifyTransportError } from './failure.js';
import { interpret } from './response.js';
import { retryDelay, shouldRetry } from './retry.js';
import type { ApiResult } from './types.js';

/** Spec, Limits: "default client timeout 120 s" for every call but the upscale quote. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Three GET retries: with the 8 s backoff cap a read gives up within ~15 s of backoff, inside a 45 s wait. */
export const DEFAULT_MAX_RETRIES = 3;
/** The spec shows no rate or concurrency limits; 4 in flight is polite and enough for a few polls plus a submit. */
export const DEFAULT_CONCURRENCY = 4;

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
  private readonly apiKey: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly queue: PQueue;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly logger: Logger | undefined;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: PlatformHttpOptions) {
    registerSecret(opts.apiKey);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.ownsDispatcher = opts.dispatcher === undefined;
    // undici's own header/body timeouts (300 s by default) would cut the 420 s upscale quote short, so
    // they are off and the per-request AbortSignal is the one timeout.
    this.dispatcher =
      opts.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0, connections: 16 });
    this.queue = new PQueue({
      concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
      ...(opts.intervalCap !== undefined && opts.interval !== undefined
        ? { intervalCap: opts.intervalCap, interval: opts.interval }
        : {}),
    });
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
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * Queues one attempt. The caller's signal may remove it from the queue, but once it runs, `send` alone
   * decides what an abort means (p-queue would otherwise reject with the bare abort reason, hiding that a
   * submit POST already on the wire is "unknown").
   */
  private async enqueue<T>(spec: RequestSpec<T>, attempt: number): Promise<ApiResult<T>> {
    const caller = spec.signal;
    if (!caller) return this.queue.add(() => this.send(spec, attempt));
    caller.throwIfAborted();
    const whileQueued = new AbortController();
    let started = false;
    const onAbort = () => {
      if (!started) whileQueued.abort(caller.reason);
    };
    caller.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.queue.add(
        () => {
          started = true;
          return this.send(spec, attempt);
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
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    // The clock starts at dispatch, not at enqueue: time spent waiting in our own queue is not the platform's.
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const started = performance.now();
    let status: number | undefined;
    let outcome = 'ok';
    try {
      const res = await fetch(this.url(spec), {
        method: spec.method,
        headers: this.headers(spec, sentId),
        body: spec.form ?? (spec.json !== undefined ? JSON.stringify(spec.json) : undefined),
        signal,
        dispatcher: this.dispatcher,
        // Never follow a redirect: fetch would carry X-Api-Key to whatever host it names (invariant 5).
        redirect: 'manual',
      });
      status = res.status;
      requestId = res.headers.get('x-request-id') || sentId;
      const text = await res.text();
      const data = interpret(
        { status: res.status, text, retryAfter: res.headers.get('retry-after'), requestId },
        { schema: spec.schema, envelope: spec.envelope, submit: spec.submit },
      );
      return { data, requestId };
    } catch (err) {
      const failure = this.failure(err, spec, requestId, timeoutMs, timeout);
      outcome = failure.name;
      throw failure;
    } finally {
      // Path only, no query: ids are not secret, but nothing in a log line needs more than the route.
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

  /** Maps whatever one attempt threw to the error the caller sees. */
  private failure(
    err: unknown,
    spec: RequestSpec<unknown>,
    requestId: string,
    timeoutMs: number,
    timeout: AbortSignal,
  ): Error {
    if (err instanceof SubmissionUnknownError) return err;
    const callerAborted = spec.signal?.aborted === true && !(err instanceof PlatformError);
    if (callerAborted && spec.signal) {
      // A cancelled submit POST was already on the wire: the job may exist, so it is "unknown", not "aborted".
      return spec.submit ? new SubmissionUnknownError(undefined, requestId) : abortError(spec.signal);
    }
    const classified =
      timeout.aborted && !(err instanceof PlatformError)
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
