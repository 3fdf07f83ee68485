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
import type { ActiveTracing, SpanAttributes, SpanMark, SpanOptions, TracingSeam } from './traces-types.js';

export type {
  ActiveTracing,
  SpanAttributes,
  SpanMark,
  SpanOptions,
  SpanValue,
  TraceCarrier,
  TracingSeam,
} from './traces-types.js';

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
