/**
 * Review 6: at shutdown the metrics' last export reads its gauges (open jobs, the event outbox) from the store, so
 * the metrics must close before the store does. Closed after it, every clean stop logged "a gauge could not read
 * the store: The job store is closed" and the last export (on stdio, with the default 60 s interval, the only one)
 * carried no gauge at all. The built bin over stdio, OTLP metrics to a local receiver, one tool call.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, spawnServer } from '../helpers/spawn-server.js';

let sim: Simulator;
let dir: string;
let collector: Server;
const bodies: string[] = [];
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  dir = await mkdtemp(join(tmpdir(), 'genplat-r6-gauges-'));
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
}, 180_000);
afterAll(async () => {
  await new Promise((r) => collector?.close(r));
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('metrics at shutdown', () => {
  it('export the store gauges one last time, and log no closed-store warning', async () => {
    const port = (collector.address() as AddressInfo).port;
    const s = await spawnServer({
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_STATE_DIR: dir,
      GENPLAT_LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics`,
    });
    const r = await s.client.callTool({ name: 'list_voices', arguments: {} });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await s.close();
    expect(s.stderr()).not.toMatch(/gauge could not read the store/);
    const last = bodies.find((b) => b.includes('genplat.tool.calls'));
    expect(last).toBeDefined();
    expect(last).toContain('genplat.events.outbox.depth');
  }, 60_000);
});
