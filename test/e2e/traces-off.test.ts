/**
 * Traces off by default (issue 30 item 1): the built bin, started with no OTEL_* variable, answers tools/list and a
 * tool call that reads the platform without loading a single OpenTelemetry module (API, SDK or exporter): a
 * `module.registerHooks` preload records every one the process loads, through `import` or `require`. The same
 * server with `OTEL_TRACES_EXPORTER=console` is the check's control: it loads the SDK and writes the call's spans
 * to stderr (never stdout), so the recorder is shown to see what it must.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { withModuleRecord } from '../helpers/otel-modules.js';
import { ensureBuilt } from '../helpers/spawn-server.js';

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  dir = await mkdtemp(join(tmpdir(), 'genplat-traces-off-'));
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Starts the bin with `env` on top of the platform settings, lists tools and reads the platform once. */
async function listAndCall(name: string, env: Record<string, string>) {
  const { result, modules } = await withModuleRecord(
    sim,
    dir,
    name,
    env,
    async (s) => {
      expect((await s.client.listTools()).tools.length).toBeGreaterThan(10);
      const r = await s.client.callTool({ name: 'list_voices', arguments: {} });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      return { stderr: s.stderr(), stdout: s.stdout() };
    },
    { era: 'modern' },
  );
  return { modules, ...result };
}

describe('traces off by default', () => {
  it('with no OTEL_* variable, tools/list and a platform read load no OpenTelemetry module', async () => {
    const { modules, stderr } = await listAndCall('off', {});
    expect(modules).toEqual([]);
    expect(stderr).not.toMatch(/"trace":"span"/);
  });

  it('OTEL_SDK_DISABLED=true wins over an exporter: nothing loaded', async () => {
    const { modules } = await listAndCall('disabled', { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console' });
    expect(modules).toEqual([]);
  });

  it('control: OTEL_TRACES_EXPORTER=console loads the SDK and writes the spans to stderr, never stdout', async () => {
    const { modules, stderr, stdout } = await listAndCall('console', { OTEL_TRACES_EXPORTER: 'console' });
    expect(modules.some((u) => u.includes('/@opentelemetry/sdk-trace/'))).toBe(true);
    expect(modules.some((u) => u.includes('/@opentelemetry/api/'))).toBe(true);
    const spans = stderr
      .split('\n')
      .filter((l) => l.startsWith('{"trace":"span"'))
      .map((l) => JSON.parse(l) as { name: string; traceId: string; parentSpanId?: string; spanId: string });
    const tool = spans.find((s) => s.name === 'tools/call list_voices');
    const read = spans.find((s) => s.name === 'GET /video/voices');
    expect(tool, stderr).toBeDefined();
    expect(read?.traceId).toBe(tool?.traceId);
    expect(read?.parentSpanId).toBe(tool?.spanId);
    expect(stdout).not.toContain('"trace":"span"');
  });
});
