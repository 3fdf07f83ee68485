/**
 * The one seam every traced step goes through (issue 30 item 1, docs/operate.md "Traces"). Off by default: then
 * `inSpan(…, fn)` is `fn(NO_MARK)` and nothing of OpenTelemetry is loaded, neither the API nor the SDK, so start-up
 * time and memory stay what they were (this module imports nothing). `startTracing` loads the API, the SDK and the
 * exporters by dynamic import (traces-sdk.ts) and from then on every `inSpan` records a span.
 *
 * No secret goes into a span: callers pass only names, routes, figures, ids and outcomes, never a key, a token, a
 * request or response body or a file; `safeAttributes` drops anything else that would not be a plain scalar.
 */
import { boundedFlush } from './flush-bound.js';
import type { TracesSettings } from './traces-settings.js';

export type SpanValue = string | number | boolean;
export type SpanAttributes = Record<string, SpanValue | undefined>;

/** What a traced step may say about itself while it runs. */
export interface SpanMark {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed: `error.type` (a low-cardinality class such as `tool_error`) and status ERROR. */
  fail(errorType: string): void;
}

/** W3C trace context as a 2026-07-28 request carries it in `params._meta` (and HTTP headers do). */
export interface TraceCarrier {
  traceparent?: unknown;
  tracestate?: unknown;
}

export interface SpanOptions {
  /** `server` for an MCP request, `client` for a request we send; `internal` otherwise (default). */
  kind?: 'server' | 'client' | 'internal';
  /** Continue the caller's trace instead of the current one (the tool span's `_meta.traceparent`). */
  parent?: TraceCarrier | undefined;
  /** Only inside a traced operation: with no current span, `fn` just runs (a background read has no caller). */
  requireParent?: boolean;
}

/** The running tracer (traces-sdk.ts); absent while traces are off. */
export interface ActiveTracing {
  run<T>(name: string, attributes: SpanAttributes, fn: (mark: SpanMark) => Promise<T>, opts: SpanOptions): Promise<T>;
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
  annotate(attributes: SpanAttributes): void;
  detach<T>(fn: () => T): T;
  shutdown(): Promise<void>;
}

/** What a test passes to collect spans in memory (an SDK `SpanExporter`, exported at once, synchronously). */
export interface TracingSeam {
  exporter?: unknown;
}

const NO_MARK: SpanMark = { set() {}, fail() {} };
let active: ActiveTracing | undefined;

/** Runs `fn` inside a span named `name` when traces are on; just runs it when off. Rethrows what `fn` throws. */
export function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (mark: SpanMark) => Promise<T>,
  opts: SpanOptions = {},
): Promise<T> {
  return active ? active.run(name, attributes, fn, opts) : fn(NO_MARK);
}

/**
 * `fn` bound to the current trace context: for work a queue starts later from someone else's callback (p-queue
 * runs a waiting request when another one finishes), so its span still has the right parent.
 */
export function bindToTrace<F extends (...args: never[]) => unknown>(fn: F): F {
  return active ? active.bind(fn) : fn;
}

/** Adds attributes to the current span (the innermost `inSpan` this code runs in), if traces are on. */
export function annotateSpan(attributes: SpanAttributes): void {
  active?.annotate(attributes);
}

/**
 * Runs `fn` outside any trace: for a background loop that a call merely started (the follower's timer), whose later
 * reads belong to no caller's trace and would otherwise hang under a tool span that ended long ago.
 */
export function outsideTrace<T>(fn: () => T): T {
  return active ? active.detach(fn) : fn();
}

export function tracingOn(): boolean {
  return active !== undefined;
}

/**
 * Turns traces on for this process: loads the SDK and exporters (dynamic import) and installs the tracer.
 * `seam.exporter` (tests): spans go to it as they end, instead of the settings' exporters.
 */
export async function startTracing(settings: TracesSettings, seam: TracingSeam = {}): Promise<void> {
  if (active) return;
  const { createTracing } = await import('./traces-sdk.js');
  active = await createTracing(settings, seam);
}

/** Flushes what is buffered and turns traces off again (shutdown, and tests in a shared worker). */
export async function stopTracing(): Promise<void> {
  const was = active;
  active = undefined;
  if (was) await boundedFlush(was.shutdown());
}
