/**
 * The instruments behind the hooks of metrics.ts, on the OpenTelemetry metrics SDK. Loaded by dynamic import from
 * metrics-start.ts only when metrics are on (never at start-up otherwise). One MeterProvider feeds both readers:
 * the OTLP push exporter (OTEL_* variables) and the Prometheus pull reader served at `/metrics` (metrics-route.ts),
 * so a figure is counted once whichever way it leaves.
 *
 * Names follow the OpenTelemetry conventions (dotted, unit in `unit`); the Prometheus reader writes them as
 * `genplat_tool_calls_total`, `mcp_server_operation_duration_seconds` etc. (table in docs/operate.md).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes, Meter, ObservableResult } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type IMetricReader, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { MetricsSink } from './metrics.js';
import { routeTemplate } from './metrics-route-template.js';

/** The MCP semantic conventions' advice for mcp.server.operation.duration (seconds). */
const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Store calls take milliseconds; a lock or statement timeout is seconds (src/store/db-timeouts.ts). */
const STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Event delivery lag: seconds when the endpoint is up, up to the retry window (hours) when it is not. */
const LAG_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];

/** What the scrape-time gauges read (metrics-start.ts gives store-backed readers). */
export interface GaugeSources {
  /** Open jobs (submitted/processing) per tool. */
  openJobs?(): Promise<Map<string, number>>;
  /** Undelivered event deliveries, and the age in seconds of the oldest (undefined: none). */
  outbox?(): Promise<{ depth: number; oldestAgeSeconds: number | undefined }>;
}

export interface MetricsRuntime {
  sink: MetricsSink;
  /** Answers a Prometheus scrape (only with a Prometheus reader; the caller checked the bearer token). */
  scrape?(req: IncomingMessage, res: ServerResponse): void;
  /** Adds the gauges that read the store (once it is open). */
  observe(sources: GaugeSources): void;
  /** Flushes the OTLP reader and stops. */
  close(): Promise<void>;
}

export interface InstrumentOptions {
  otlp: boolean;
  /** OTEL_METRIC_EXPORT_INTERVAL (ms). */
  exportIntervalMs: number;
  prometheus: boolean;
  serviceVersion: string;
  /** A gauge read that failed (store away): logged, never thrown into the scrape. */
  onGaugeError(err: unknown): void;
}

const person = (owner: string | undefined) => owner ?? 'local';

export function createMetricsRuntime(opts: InstrumentOptions): MetricsRuntime {
  const readers: IMetricReader[] = [];
  const prom = opts.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  if (prom) readers.push(prom);
  if (opts.otlp) {
    readers.push(
      new PeriodicExportingMetricReader({
        // Reads OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT / _HEADERS / _PROTOCOL itself.
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: opts.exportIntervalMs,
      }),
    );
  }
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'genplat-mcp', 'service.version': opts.serviceVersion }),
    readers,
  });
  const meter = provider.getMeter('genplat-mcp', opts.serviceVersion);
  const sink = instruments(meter);
  return {
    sink,
    ...(prom ? { scrape: (req, res) => prom.getMetricsRequestHandler(req, res) } : {}),
    observe: (sources) => observeGauges(meter, sources, opts.onGaugeError),
    close: () => provider.shutdown(),
  };
}

function instruments(meter: Meter): MetricsSink {
  const operation = meter.createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'MCP request duration as observed on the server (tools/call, resources/read).',
    advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS },
  });
  const toolCalls = meter.createCounter('genplat.tool.calls', {
    description: 'Tool calls by tool and outcome (ok, tool_error, refused, invalid_input, input_required).',
  });
  const refusals = meter.createCounter('genplat.admission.refusals', {
    description: 'Paid calls refused by an admission rule (per_call, per_day, per_user_day, duplicate, ...).',
  });
  const platform = meter.createHistogram('genplat.platform.request.duration', {
    unit: 's',
    description: 'Platform API requests by method, route template and HTTP status (or error type).',
    advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS },
  });
  const quoted = meter.createCounter('genplat.credits.quoted', {
    unit: '{credit}',
    description: 'Quoted credits (the consented bound) of paid requests the platform accepted.',
  });
  const charged = meter.createCounter('genplat.credits.charged', {
    unit: '{credit}',
    description: 'Credits the platform charged, counted when a job ends.',
  });
  const refunded = meter.createCounter('genplat.credits.refunded', {
    unit: '{credit}',
    description: 'Credits the platform refunded, counted when a job ends.',
  });
  const deliveries = meter.createCounter('genplat.events.delivery.attempts', {
    description: 'Event delivery attempts by outcome (delivered, retry, gave_up).',
  });
  const lag = meter.createHistogram('genplat.events.delivery.lag', {
    unit: 's',
    description: 'From an event delivery being due to its successful POST.',
    advice: { explicitBucketBoundaries: LAG_BUCKETS },
  });
  const store = meter.createHistogram('genplat.store.operation.duration', {
    unit: 's',
    description: 'Job store calls by operation and outcome (ok, error, timeout).',
    advice: { explicitBucketBoundaries: STORE_BUCKETS },
  });
  return {
    toolCall(tool, outcome, seconds) {
      toolCalls.add(1, { 'gen_ai.tool.name': tool, outcome });
      const attrs: Attributes = {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': tool,
        'gen_ai.operation.name': 'execute_tool',
      };
      // The conventions: error.type only when the call failed; `tool_error` for an isError result.
      if (outcome !== 'ok' && outcome !== 'input_required') attrs['error.type'] = 'tool_error';
      operation.record(seconds, attrs);
    },
    operation(method, errorType, seconds) {
      operation.record(seconds, { 'mcp.method.name': method, ...(errorType ? { 'error.type': errorType } : {}) });
    },
    admissionRefused(tool, rule) {
      refusals.add(1, { 'gen_ai.tool.name': tool, rule });
    },
    platformResponse(method, path, status, error, seconds) {
      const attrs: Attributes = { 'http.request.method': method, 'http.route': routeTemplate(path) };
      if (status !== undefined) attrs['http.response.status_code'] = status;
      if (error !== 'ok') attrs['error.type'] = error;
      platform.record(seconds, attrs);
    },
    creditsQuoted(tool, owner, credits) {
      if (credits > 0) quoted.add(credits, { 'gen_ai.tool.name': tool, 'genplat.owner': person(owner) });
    },
    creditsReported(tool, owner, ch, rf) {
      const attrs = { 'gen_ai.tool.name': tool, 'genplat.owner': person(owner) };
      if (ch > 0) charged.add(ch, attrs);
      if (rf > 0) refunded.add(rf, attrs);
    },
    eventDelivery(outcome, lagSeconds) {
      deliveries.add(1, { outcome });
      if (lagSeconds !== undefined) lag.record(lagSeconds);
    },
    storeCall(op, outcome, seconds) {
      store.record(seconds, { 'db.operation.name': op, outcome });
    },
  };
}

function observeGauges(meter: Meter, sources: GaugeSources, onError: (err: unknown) => void): void {
  if (sources.openJobs) {
    const read = sources.openJobs;
    meter
      .createObservableGauge('genplat.jobs.open', { description: 'Jobs submitted and not yet final, per tool.' })
      .addCallback(async (r: ObservableResult) => {
        try {
          for (const [tool, n] of await read()) r.observe(n, { 'gen_ai.tool.name': tool });
        } catch (err) {
          onError(err);
        }
      });
  }
  if (sources.outbox) {
    const read = sources.outbox;
    const depth = meter.createObservableGauge('genplat.events.outbox.depth', {
      description: 'Event deliveries not yet delivered (all endpoints).',
    });
    const age = meter.createObservableGauge('genplat.events.outbox.age', {
      unit: 's',
      description: 'Age of the oldest undelivered event delivery (0 when none).',
    });
    meter.addBatchObservableCallback(
      async (r) => {
        try {
          const o = await read();
          r.observe(depth, o.depth);
          r.observe(age, o.oldestAgeSeconds ?? 0);
        } catch (err) {
          onError(err);
        }
      },
      [depth, age],
    );
  }
}
