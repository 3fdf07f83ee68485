/**
 * A lighter start (issue 20 item 7): what a host asks right after connecting (initialize, tools/list,
 * resources/list, resources/templates/list, prompts/list) needs no platform. Against the built bin and a real
 * simulator: the simulator hears nothing, and the HTTP machinery (undici) is not loaded until the first tool
 * call that reads the platform (which this test then makes, proving the module check can see undici load).
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
  dir = await mkdtemp(join(tmpdir(), 'genplat-connect-'));
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

const undiciLoaded = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe.each(['legacy', 'modern'] as const)('connect-time listing (%s era)', (era) => {
  it('sends no platform request and loads no undici; the first catalog read does both', async () => {
    const moduleLog = join(dir, `${era}-modules.log`);
    sim.log.clear();
    let s: SpawnedServer | undefined;
    try {
      s = await spawnServer(
        {
          GENPLAT_BASE_URL: sim.baseUrl,
          GENPLAT_API_KEY: sim.apiKey,
          GENPLAT_STATE_DIR: join(dir, era),
          GENPLAT_TOOLSETS: 'all',
          GENPLAT_LOG_LEVEL: 'error',
          GENPLAT_TEST_MODULE_LOG: moduleLog,
          NODE_OPTIONS: `--import ${join(ROOT, 'test/fixtures/record-undici.mjs')}`,
        },
        [],
        { era },
      );
      const { client } = s;
      expect((await client.listTools()).tools.length).toBeGreaterThan(20);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('genplat://models');
      expect((await client.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
      expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);

      expect(sim.log.entries()).toEqual([]);
      expect(await undiciLoaded(moduleLog)).toEqual([]);

      // The first platform read loads the HTTP client: the check above can see it.
      const r = await client.callTool({ name: 'list_voices', arguments: {} });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(sim.log.entries().map((e) => `${e.method} ${e.path}`)).toEqual(['GET /video/voices']);
      expect((await undiciLoaded(moduleLog)).length).toBeGreaterThan(0);
    } finally {
      await s?.close();
    }
  });
});
