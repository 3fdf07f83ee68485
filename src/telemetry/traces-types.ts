/**
 * The shapes the tracing seam (traces.ts) and the SDK behind it (traces-sdk.ts) share. Apart from both so that the
 * SDK module, loaded by dynamic import only when traces are on, depends on these and never on the seam that loads it.
 */
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
