/**
 * Metrics cost nothing when off (issue 30 item 2): the built bin over stdio, with no OTEL_* variable and no
 * GENPLAT_METRICS_TOKEN, answers a tool call that reads the platform without loading any OpenTelemetry metrics
 * module (SDK or exporter). The same run with OTLP metrics turned on loads them: the check can see them load.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, ROOT, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

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

const loaded = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

async function run(name: string, env: Record<string, string>): Promise<string[]> {
  const moduleLog = join(dir, `${name}-modules.log`);
  let s: SpawnedServer | undefined;
  try {
    s = await spawnServer(
      {
        GENPLAT_BASE_URL: sim.baseUrl,
        GENPLAT_API_KEY: sim.apiKey,
        GENPLAT_STATE_DIR: join(dir, name),
        GENPLAT_LOG_LEVEL: 'error',
        GENPLAT_TEST_MODULE_LOG: moduleLog,
        NODE_OPTIONS: `--import ${join(ROOT, 'test/fixtures/record-otel-metrics.mjs')}`,
        ...env,
      },
      [],
    );
    const r = await s.client.callTool({ name: 'list_voices', arguments: {} });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  } finally {
    await s?.close();
  }
  return loaded(moduleLog);
}

describe('metrics off', () => {
  it('loads no OpenTelemetry metrics module; turned on (OTLP), it does', async () => {
    expect(await run('off', {})).toEqual([]);
    // A closed port: the export fails quietly at shutdown; what counts is that the SDK was loaded.
    const on = await run('on', {
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:9/v1/metrics',
    });
    expect(on.some((u) => u.includes('sdk-metrics'))).toBe(true);
  });
});
