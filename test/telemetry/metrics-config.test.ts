/**
 * When metrics are on (src/telemetry/metrics-config.ts through loadConfig): off by default, on with the standard
 * OTEL_* variables or GENPLAT_METRICS_TOKEN, everything off with OTEL_SDK_DISABLED=true; a short metrics token,
 * or one that is also an MCP caller's, is refused at start without quoting it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';

const HTTP_TOKEN = 'http-caller-token-0123456789';
const load = (env: Record<string, string>) =>
  loadConfig(parseCli(['--http', '--sandbox']), { GENPLAT_HTTP_TOKEN: HTTP_TOKEN, ...env });
const problems = (env: Record<string, string>) => {
  try {
    load(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigurationError) return err.problems;
    throw err;
  }
};

describe('metrics configuration', () => {
  it('is off unless asked for', () => {
    expect(load({}).metrics).toBeUndefined();
    expect(load({ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).metrics).toBe(
      undefined,
    );
  });

  it('turns OTLP on with an endpoint or OTEL_METRICS_EXPORTER=otlp, and /metrics with its token', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).metrics).toEqual({
      otlp: true,
      exportIntervalMs: 60_000,
    });
    expect(load({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '5000' }).metrics).toEqual({
      otlp: true,
      exportIntervalMs: 5000,
    });
    expect(load({ GENPLAT_METRICS_TOKEN: 'scraper-token-0123456789' }).metrics).toEqual({
      otlp: false,
      exportIntervalMs: 60_000,
      token: 'scraper-token-0123456789',
    });
  });

  it('OTEL_SDK_DISABLED=true turns everything off', () => {
    expect(
      load({
        OTEL_SDK_DISABLED: 'true',
        OTEL_METRICS_EXPORTER: 'otlp',
        GENPLAT_METRICS_TOKEN: 'scraper-token-0123456789',
      }).metrics,
    ).toBeUndefined();
  });

  it('refuses a short token and an MCP caller token, naming the rule and never the value', () => {
    expect(problems({ GENPLAT_METRICS_TOKEN: 'short-token' })).toEqual([
      'GENPLAT_METRICS_TOKEN must be at least 16 characters',
    ]);
    const same = problems({ GENPLAT_METRICS_TOKEN: HTTP_TOKEN });
    expect(same).toEqual(['GENPLAT_METRICS_TOKEN must differ from every GENPLAT_HTTP_TOKEN']);
    expect(same.join('\n')).not.toContain(HTTP_TOKEN);
  });
  it('an OTLP endpoint that is not an http(s) URL is refused naming it, once even when traces also read it', () => {
    expect(problems({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'localhost:4318' })).toEqual([
      'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: must be an http:// or https:// URL of an OTLP/HTTP receiver (e.g. http://localhost:4318)',
    ]);
    // The shared variable turns traces and metrics on: one line, not two.
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL of an OTLP/HTTP receiver (e.g. http://localhost:4318)',
    ]);
    expect(load({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://otel.example.com/v1/metrics' }).metrics?.otlp).toBe(
      true,
    );
  });
});
