/**
 * When traces are on (issue 30 item 1, docs/operate.md "Traces"): read from the standard OpenTelemetry variables
 * only, off unless the operator names an exporter or a collector. Pure: config.ts passes the parsed environment in.
 *
 * - `OTEL_SDK_DISABLED=true` wins: off, whatever else is set.
 * - `OTEL_TRACES_EXPORTER` (comma list of `otlp`, `console`, `none`): `none` anywhere = off; otherwise on with those.
 * - unset: on with `otlp` when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else
 *   off. (The specification's default exporter is `otlp`; ours is off, so that a server nobody set up for telemetry
 *   never loads the SDK nor posts to localhost:4318.)
 * OTLP goes over HTTP (JSON, which every OTLP/HTTP receiver accepts on `/v1/traces`): `grpc` is refused, because
 * its port would not answer HTTP and every span would be lost in silence.
 */
import { tracesWords as W } from './traces-wording.js';

export type TraceExporterName = 'otlp' | 'console';

export interface TracesSettings {
  exporters: readonly TraceExporterName[];
}

/** The variables read here (config.ts declares them; the OTLP exporter reads its own OTEL_EXPORTER_OTLP_* too). */
export type OtelEnv = Partial<
  Record<
    | 'OTEL_SDK_DISABLED'
    | 'OTEL_TRACES_EXPORTER'
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_PROTOCOL'
    | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    string
  >
>;

const EXPORTERS = ['otlp', 'console', 'none'] as const;
const PROTOCOLS = ['http/json', 'http/protobuf'] as const;

const blank = (v: string | undefined) => v === undefined || v.trim() === '';

/** `undefined` = traces off. Problems name the variable and the rule (never a value that could be a secret). */
export function tracesSettings(env: OtelEnv, problems: string[]): TracesSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const endpointVars = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;
  let names: string[];
  if (blank(env.OTEL_TRACES_EXPORTER)) {
    names = endpointVars.some((k) => !blank(env[k])) ? ['otlp'] : [];
  } else {
    names = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim().toLowerCase());
    const unknown = names.filter((n) => !(EXPORTERS as readonly string[]).includes(n));
    if (unknown.length > 0) {
      problems.push(W.unknownExporter(unknown, EXPORTERS));
      return undefined;
    }
  }
  if (names.length === 0 || names.includes('none')) return undefined;
  const exporters = [...new Set(names)] as TraceExporterName[];
  if (exporters.includes('otlp')) {
    for (const k of endpointVars) {
      const v = env[k]?.trim();
      if (v && !/^https?:\/\/[^/\s]+/i.test(v)) problems.push(W.endpointNotHttp(k));
    }
    const protocolVar = blank(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)
      ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
    const protocol = env[protocolVar]?.trim().toLowerCase();
    if (protocol && !(PROTOCOLS as readonly string[]).includes(protocol)) problems.push(W.protocol(protocolVar));
  }
  return { exporters };
}
