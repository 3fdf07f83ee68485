/**
 * The bundled bin's deferred start (issue 20, cold start; src/server-deferred.ts): where the build's tools/list
 * covers the configuration, initialize and tools/list are answered before the tools, resources, prompts and task
 * handlers are loaded; the first other request loads them, and every answer is the one a server built whole
 * gives. Against the built bin (chunk loads recorded by a `module.registerHooks` preload) and a real simulator.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_CLIENT, withLiveServer } from '../../scripts/measure-tools.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, ROOT, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  dir = await mkdtemp(join(tmpdir(), 'genplat-deferred-'));
}, 180_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The bin's chunks loaded so far, by name without the content hash (`server-handlers`, `sqlite`, …). */
const chunksLoaded = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((url) => /_bin-(.+?)(-[\w-]{8})?\.js$/.exec(url)?.[1] ?? url);

let runs = 0;
async function spawnBin(
  env: Record<string, string>,
  era: 'legacy' | 'modern' = 'legacy',
  capabilities = {},
): Promise<{ s: SpawnedServer; moduleLog: string }> {
  runs += 1;
  const moduleLog = join(dir, `modules-${runs}.log`);
  const s = await spawnServer(
    {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_STATE_DIR: join(dir, `state-${runs}`),
      GENPLAT_LOG_LEVEL: 'error',
      GENPLAT_TEST_MODULE_LOG: moduleLog,
      NODE_OPTIONS: `--import ${join(ROOT, 'test/fixtures/record-bin-chunks.mjs')}`,
      ...env,
    },
    [],
    { era, capabilities },
  );
  return { s, moduleLog };
}

describe.each(['legacy', 'modern'] as const)('deferred start of the bundled bin (%s era)', (era) => {
  it('answers tools/list before loading the handlers; the first tools/call loads them, answers, and notifies no list change', async () => {
    const { s, moduleLog } = await spawnBin({ GENPLAT_TOOLSETS: 'all' }, era);
    try {
      expect((await s.client.listTools()).tools.length).toBeGreaterThan(20);
      const before = await chunksLoaded(moduleLog);
      expect(before).toContain('main');
      expect(before).not.toContain('server-handlers');

      // A tool call and the requests behind it are held while the handlers load, then each is answered.
      sim.log.clear();
      const [voices, resources, prompts, tools] = await Promise.all([
        s.client.callTool({ name: 'list_voices', arguments: {} }),
        s.client.listResources(),
        s.client.listPrompts(),
        s.client.listTools(),
      ]);
      expect(voices.isError, JSON.stringify(voices.content)).toBeFalsy();
      expect(sim.log.entries().map((e) => `${e.method} ${e.path}`)).toEqual(['GET /video/voices']);
      expect(resources.resources.map((r) => r.uri)).toContain('genplat://models');
      expect(prompts.prompts.length).toBeGreaterThan(0);
      expect(tools.tools.length).toBeGreaterThan(20);
      expect(await chunksLoaded(moduleLog)).toContain('server-handlers');
      // Registering after connect would notify list changes; the lists the client already had were complete.
      expect(s.stdout()).not.toMatch(/list_changed/);
    } finally {
      await s.close();
    }
  });

  it('bad input to a tool is refused as by a server built whole, with no request', async () => {
    const { s } = await spawnBin({}, era);
    try {
      sim.log.clear();
      const r = await s.client.callTool({ name: 'create_talking_video', arguments: { avatar_id: 42 } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/avatar_id/);
      expect(sim.log.entries()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('deferred start: same server as built whole', () => {
  /** What a host sees of a server at connect time. */
  async function connectView(client: Client) {
    return {
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      version: client.getServerVersion(),
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      prompts: (await client.listPrompts()).prompts,
    };
  }

  for (const [label, env] of [
    ['default toolsets', {}],
    ['every toolset', { GENPLAT_TOOLSETS: 'all' }],
  ] as const) {
    it(`initialize, resources, templates and prompts equal the whole server's: ${label}`, async () => {
      const { s, moduleLog } = await spawnBin(env, 'legacy', APPS_CLIENT);
      try {
        const [bin, live] = await Promise.all([
          connectView(s.client),
          withLiveServer({ ...env }, {}, APPS_CLIENT, connectView),
        ]);
        expect(bin).toEqual(live);
        // The capabilities object is sent as built: same keys in the same order.
        expect(JSON.stringify(bin.capabilities)).toBe(JSON.stringify(live.capabilities));
        expect(await chunksLoaded(moduleLog)).toContain('server-handlers');
      } finally {
        await s.close();
      }
    });
  }

  it('a configuration the prebuilt list does not cover builds the whole server at start', async () => {
    // video + jobs: the Confirm tool's enum of this configuration is not prebuilt (src/tools-list-prebuilt.ts).
    const { s, moduleLog } = await spawnBin({ GENPLAT_TOOLSETS: 'video,jobs' }, 'legacy', APPS_CLIENT);
    try {
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain('create_talking_video');
      expect(await chunksLoaded(moduleLog)).toContain('server-handlers');
    } finally {
      await s.close();
    }
  });
});
