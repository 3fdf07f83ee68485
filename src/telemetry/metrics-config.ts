/**
 * Whether metrics are on, from the standard OpenTelemetry variables and GENPLAT_METRICS_TOKEN (read by
 * src/config.ts, the only reader of the environment; docs/operate.md "Metrics"). Off unless asked for.
 */
import { tracesWords as traceWords } from './traces-wording.js';

export interface MetricsConfig {
  /** Push over OTLP (the exporter reads OTEL_EXPORTER_OTLP_* itself). */
  otlp: boolean;
  /** OTEL_METRIC_EXPORT_INTERVAL, ms (the SDK's default: 60 s). */
  exportIntervalMs: number;
  /** The bearer token of `/metrics` (HTTP mode); undefined = no Prometheus endpoint. Secret. */
  token?: string | undefined;
}

export interface MetricsEnv {
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_METRICS_EXPORTER?: string | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?: string | undefined;
  OTEL_METRIC_EXPORT_INTERVAL?: number | undefined;
  GENPLAT_METRICS_TOKEN?: string | undefined;
}

/** A scraper's token is a credential of its own: long enough to guess never, and never an MCP caller's. */
export const METRICS_TOKEN_MIN = 16;

/** @returns the metrics settings, or undefined when metrics are off; pushes a line per problem. */
export function parseMetricsConfig(
  e: MetricsEnv,
  httpTokens: readonly string[],
  problems: string[],
): MetricsConfig | undefined {
  const token = e.GENPLAT_METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < METRICS_TOKEN_MIN) {
    problems.push(`GENPLAT_METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN} characters`);
  }
  // A Prometheus config leaks more easily than an agent's: its token must not also open /mcp.
  if (token !== undefined && httpTokens.includes(token)) {
    problems.push('GENPLAT_METRICS_TOKEN must differ from every GENPLAT_HTTP_TOKEN');
  }
  // The OpenTelemetry switch: everything off, the Prometheus endpoint included.
  if (e.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (e.OTEL_METRICS_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const endpoint = Boolean(e.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim() || e.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  // Off by default: an explicit `otlp`, or an endpoint with no exporter named (`none` names none).
  const otlp = exporters.includes('otlp') || (exporters.length === 0 && endpoint);
  // The same rule as traces (traces-settings.ts): a receiver URL the exporter could not use would lose every
  // figure without a word. Said once when traces already said it of the shared variable.
  if (otlp)
    for (const k of ['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const) {
      const v = e[k]?.trim();
      const problem = traceWords.endpointNotHttp(k);
      if (v && !/^https?:\/\/[^/\s]+/i.test(v) && !problems.includes(problem)) problems.push(problem);
    }
  if (!otlp && token === undefined) return undefined;
  return { otlp, exportIntervalMs: e.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000, ...(token ? { token } : {}) };
}
