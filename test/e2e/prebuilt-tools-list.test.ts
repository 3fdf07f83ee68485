/**
 * The bundled bin answers tools/list from the list built at build time (src/tools-list-prebuilt.ts,
 * scripts/bundle-bin.mjs). It must be exactly what the SDK computes live from the registrations of the current
 * sources, in every configuration that changes which tools are registered.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTools } from '../../scripts/measure-tools.js';
import { prebuiltTools } from '../../src/tools-list-prebuilt.js';
import { ROOT, spawnServer } from '../helpers/spawn-server.js';

let stateDir: string;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'genplat-prebuilt-'));
});
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** tools/list of the built bin (the bundle) for one configuration. */
async function binTools(env: Record<string, string>, args: string[] = []) {
  const s = await spawnServer(
    {
      // A loopback address nothing listens on: listing tools must not need the platform.
      GENPLAT_API_KEY: 'sk-prebuilt-test',
      GENPLAT_BASE_URL: 'http://127.0.0.1:9/api',
      GENPLAT_STATE_DIR: join(stateDir, String(Math.random()).slice(2)),
      GENPLAT_LOG_LEVEL: 'error',
      ...env,
    },
    args,
  );
  try {
    return (await s.client.listTools()).tools;
  } finally {
    await s.close();
  }
}

describe('build-time tools/list', () => {
  it('is in the bundled bin, and absent from the unbundled modules', async () => {
    const main = await readFile(join(ROOT, 'dist', 'src', '_bin-main.js'), 'utf8');
    // The bundler replaced the placeholder with the list: nothing is left to look up at run time.
    expect(main).not.toContain('__GENPLAT_TOOLS_LIST__');
    expect(main).toContain('JSON.parse("{\\"tools\\":[{\\"name\\":');
    expect((await readdir(join(ROOT, 'dist', 'src'))).filter((f) => f.startsWith('_bin-'))).toContain('_bin-main.js');
    // Under vitest the sources run unbundled: the SDK's live handler answers.
    expect(prebuiltTools()).toBeUndefined();
  });

  const configs: [string, Record<string, string>, string[], { readOnly?: boolean }][] = [
    ['default toolsets', {}, [], {}],
    ['every toolset', { GENPLAT_TOOLSETS: 'all' }, [], {}],
    ['two toolsets', { GENPLAT_TOOLSETS: 'video,jobs' }, [], {}],
    ['read-only', { GENPLAT_TOOLSETS: 'all' }, ['--read-only'], { readOnly: true }],
  ];
  for (const [label, env, args, cli] of configs) {
    it(`equals the live tools/list: ${label}`, async () => {
      const [bin, live] = await Promise.all([binTools(env, args), listTools(env, cli)]);
      expect(bin.length).toBeGreaterThan(0);
      expect(bin).toEqual(live);
    });
  }
});
