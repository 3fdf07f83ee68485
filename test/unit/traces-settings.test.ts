/**
 * When traces are on (src/telemetry/traces-settings.ts, docs/operate.md "Traces"): off unless an exporter or an OTLP
 * endpoint is named; OTEL_SDK_DISABLED wins; a bad value stops the start naming the variable and the rule.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { type OtelEnv, tracesSettings } from '../../src/telemetry/traces-settings.js';

const settle = (env: OtelEnv) => {
  const problems: string[] = [];
  return { on: tracesSettings(env, problems), problems };
};

describe('traces settings', () => {
  it.each<[string, OtelEnv, string[] | undefined]>([
    ['nothing set', {}, undefined],
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, ['otlp']],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/v1/traces' }, ['otlp']],
    ['console', { OTEL_TRACES_EXPORTER: 'console' }, ['console']],
    ['a list, repeated, any case', { OTEL_TRACES_EXPORTER: ' OTLP, console ,otlp' }, ['otlp', 'console']],
    ['none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, undefined],
    ['none in a list', { OTEL_TRACES_EXPORTER: 'console,none' }, undefined],
    ['disabled wins', { OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'console' }, undefined],
    ['disabled=false is not disabled', { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'console' }, ['console']],
    ['blank exporter = unset', { OTEL_TRACES_EXPORTER: ' ' }, undefined],
    [
      'http/protobuf accepted',
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      ['otlp'],
    ],
  ])('%s', (_name, env, exporters) => {
    const { on, problems } = settle(env);
    expect(problems).toEqual([]);
    expect(on?.exporters).toEqual(exporters);
  });

  it.each<[string, OtelEnv, RegExp]>([
    ['an unknown exporter', { OTEL_TRACES_EXPORTER: 'otlp,zipkin' }, /^OTEL_TRACES_EXPORTER: "zipkin" is not/],
    [
      'grpc',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /^OTEL_EXPORTER_OTLP_PROTOCOL: .*grpc is not supported/,
    ],
    [
      'grpc for traces only',
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      },
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: /,
    ],
    [
      'an endpoint that is not a URL',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/,
    ],
  ])('refuses %s, naming the variable and the rule', (_name, env, message) => {
    const { problems } = settle(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('reaches Config from the environment, and a bad value stops the start', () => {
    const cli = parseCli(['--sandbox']);
    expect(loadConfig(cli, {}).traces).toBeUndefined();
    expect(loadConfig(cli, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).traces).toEqual({
      exporters: ['otlp'],
    });
    expect(() => loadConfig(cli, { OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(ConfigurationError);
  });
});
