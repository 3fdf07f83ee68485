/**
 * Metrics cost nothing when off (issue 30 item 2): the built bin over stdio, with no OTEL_* variable and no
 * GENPLAT_METRICS_TOKEN, answers a tool call that reads the platform without loading any OpenTelemetry metrics
 * module (SDK or exporter). The same run with OTLP metrics turned on loads them (the check can see them load),
 * and on stdio its counters reach an OTLP receiver when the server stops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  dir = await mkdtemp(join(tmpdir(), 'genplat-metrics-off-'));
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The OpenTelemetry metrics SDK and exporters (the API alone is the hooks' no-op surface). */
const METRICS = /[\\/]@opentelemetry[\\/](sdk-metrics|exporter-prometheus|exporter-metrics-otlp-http)[\\/]/;

async function run(name: string, env: Record<string, string>): Promise<string[]> {
  const { modules } = await withModuleRecord(sim, dir, name, env, async (s) => {
    const r = await s.client.callTool({ name: 'list_voices', arguments: {} });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  });
  return modules.filter((u) => METRICS.test(u));
}

describe('metrics off', () => {
  it('loads no OpenTelemetry metrics module; turned on (OTLP), it does and exports at shutdown', async () => {
    expect(await run('off', {})).toEqual([]);
    // An OTLP/HTTP receiver (the exporter sends OTLP JSON).
    const bodies: { path: string; type: string; body: string }[] = [];
    const collector: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({
          path: req.url ?? '',
          type: String(req.headers['content-type']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const port = (collector.address() as AddressInfo).port;
      const on = await run('on', { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics` });
      expect(on.some((u) => u.includes('sdk-metrics'))).toBe(true);
      const sent = bodies.find((b) => b.body.includes('genplat.tool.calls'));
      expect(sent?.path).toBe('/v1/metrics');
      expect(sent?.type).toBe('application/json');
      expect(sent?.body).toContain('list_voices');
      expect(sent?.body).not.toContain(sim.apiKey);
    } finally {
      await new Promise((r) => collector.close(r));
    }
  });
});
