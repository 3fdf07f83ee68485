/**
 * The OpenTelemetry SDK side of traces, loaded only by `startTracing` (traces.ts), never at start-up while traces
 * are off: the API, the SDK, the async context manager, the W3C propagator, the resource and the exporters.
 *
 * - Parent: a request's `_meta.traceparent`/`tracestate` (W3C trace context), else the current span.
 * - Sampler: the SDK default (parent-based, always on for a root): a host that sampled its trace out is obeyed.
 * - Resource: `service.name` = genplat-mcp and `service.version`, overridden by `OTEL_SERVICE_NAME` and
 *   `OTEL_RESOURCE_ATTRIBUTES` (the SDK's env detector).
 * - Exporters: `otlp` = OTLP/HTTP batched (the exporter reads its OTEL_EXPORTER_OTLP_* variables itself);
 *   `console` = one JSON line per span on stderr (never stdout: in stdio mode it carries only JSON-RPC).
 */
import {
  type Context,
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, hrTimeToMilliseconds, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { packageVersion } from '../package-version.js';
import type { TracesSettings } from './traces-settings.js';
import type {
  ActiveTracing,
  SpanAttributes,
  SpanMark,
  SpanOptions,
  TraceCarrier,
  TracingSeam,
} from './traces-types.js';

const NO_MARK: SpanMark = { set() {}, fail() {} };
const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

/** Plain scalars only, strings capped: a span attribute is a label, never a payload. */
export function safeAttributes(a: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string') out[k] = v.length > 256 ? `${v.slice(0, 256)}…` : v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/** An exception's class name as `error.type` (low cardinality); its message may quote input, so never that. */
function errorType(err: unknown): string {
  const name = err instanceof Error ? err.name : undefined;
  return name && /^[A-Za-z_][\w.]{0,63}$/.test(name) ? name : '_OTHER';
}

/** One JSON line per ended span on stderr: a look at traces without a collector. */
class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (r: { code: ExportResultCode }) => void): void {
    for (const s of spans) {
      const ctx = s.spanContext();
      const line = {
        trace: 'span',
        name: s.name,
        traceId: ctx.traceId,
        spanId: ctx.spanId,
        parentSpanId: s.parentSpanContext?.spanId,
        kind: SpanKind[s.kind],
        ms: Math.round(hrTimeToMilliseconds(s.duration) * 10) / 10,
        status: SpanStatusCode[s.status.code],
        attributes: s.attributes,
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

function processors(settings: TracesSettings, seam: TracingSeam): SpanProcessor[] {
  if (seam.exporter) return [new SimpleSpanProcessor({ exporter: seam.exporter as SpanExporter })];
  return settings.exporters.map((name) =>
    name === 'otlp'
      ? new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })
      : new SimpleSpanProcessor({ exporter: new StderrSpanExporter() }),
  );
}

export async function createTracing(settings: TracesSettings, seam: TracingSeam): Promise<ActiveTracing> {
  const detected = detectResources({ detectors: [envDetector] });
  await detected.waitForAsyncAttributes?.();
  const resource = resourceFromAttributes({
    'service.name': 'genplat-mcp',
    'service.version': packageVersion(),
  }).merge(detected);
  const provider = new TracerProvider({
    resource,
    spanProcessors: processors(settings, seam),
    spanLimits: { attributeValueLengthLimit: 256 },
  });
  const tracer = provider.getTracer('genplat-mcp', packageVersion());
  // Spans follow awaits through AsyncLocalStorage. A context manager someone else installed (an embedding
  // process) is kept: setGlobalContextManager refuses a second one, and theirs carries our spans as well.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const ownsContext = context.setGlobalContextManager(contextManager);
  if (!ownsContext) contextManager.disable();
  const propagator = new W3CTraceContextPropagator();

  /** The caller's trace from `_meta`, when it sent a well-formed one; else the current context. */
  const parentOf = (carrier: TraceCarrier | undefined): Context => {
    const traceparent = carrier?.traceparent;
    if (typeof traceparent !== 'string') return context.active();
    const tracestate = typeof carrier?.tracestate === 'string' ? carrier.tracestate : undefined;
    const extracted = propagator.extract(
      ROOT_CONTEXT,
      tracestate === undefined ? { traceparent } : { traceparent, tracestate },
      defaultTextMapGetter,
    );
    return trace.getSpanContext(extracted) ? extracted : context.active();
  };

  return {
    async run(name, attributes, fn, opts: SpanOptions) {
      const parent = parentOf(opts.parent);
      if (opts.requireParent && !trace.getSpan(parent)) return fn(NO_MARK);
      const span: Span = tracer.startSpan(
        name,
        { kind: KINDS[opts.kind ?? 'internal'], attributes: safeAttributes(attributes) },
        parent,
      );
      let failed = false;
      const mark: SpanMark = {
        set: (a) => span.setAttributes(safeAttributes(a)),
        fail: (type) => {
          failed = true;
          span.setAttribute('error.type', type);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
      };
      try {
        return await context.with(trace.setSpan(parent, span), () => fn(mark));
      } catch (err) {
        if (!failed) mark.fail(errorType(err));
        throw err;
      } finally {
        span.end();
      }
    },
    bind: (fn) => context.bind(context.active(), fn),
    annotate: (a) => trace.getActiveSpan()?.setAttributes(safeAttributes(a)),
    detach: (fn) => context.with(ROOT_CONTEXT, fn),
    async shutdown() {
      await provider.shutdown();
      if (ownsContext) context.disable();
    },
  };
}
