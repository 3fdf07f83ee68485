/**
 * The bundled bin answers tools/list from the list built at build time (src/tools-list-prebuilt.ts,
 * scripts/bundle-bin.mjs). It must be exactly what the SDK computes live from the registrations of the current
 * sources, in every configuration that changes which tools are registered, for a client that declared MCP Apps
 * and for one that did not (App-only tools are listed to the first only: src/protocol/app-only.ts).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_CLIENT, listTools } from '../../scripts/measure-tools.js';
import { CONFIRM_TOOL } from '../../src/apps/confirm-tool.js';
import { prebuiltTools } from '../../src/tools-list-prebuilt.js';
import { ensureBuilt, ROOT, spawnServer } from '../helpers/spawn-server.js';

type Era = 'legacy' | 'modern';

let stateDir: string;
beforeAll(async () => {
  // The first test reads the bundle before any server is spawned (spawnServer would build it). A rebuild of
  // dist/ (under a lock shared with other test files) can take a minute on a busy box.
  ensureBuilt();
  stateDir = await mkdtemp(join(tmpdir(), 'genplat-prebuilt-'));
}, 180_000);
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

type Client = 'apps' | 'plain' | 'slack';
/** Slackbot: MCP Apps and Slack's Block Kit (src/protocol/slack-block-kit.ts). */
const SLACK_CLIENT = {
  extensions: {
    ...(APPS_CLIENT.extensions as object),
    'io.slack/block-kit': { mimeTypes: ['application/vnd.slack.blocks+json'] },
  },
};
const capsOf = (c: Client) => (c === 'apps' ? APPS_CLIENT : c === 'slack' ? SLACK_CLIENT : {});

/** The built bin (the bundle) for one configuration, to a client that declares MCP Apps or not. */
function spawnBin(env: Record<string, string>, args: string[] = [], client: Client = 'plain', era: Era = 'legacy') {
  return spawnServer(
    {
      // A loopback address nothing listens on: listing tools must not need the platform.
      GENPLAT_API_KEY: 'sk-prebuilt-test',
      GENPLAT_BASE_URL: 'http://127.0.0.1:9/api',
      GENPLAT_STATE_DIR: join(stateDir, String(Math.random()).slice(2)),
      GENPLAT_LOG_LEVEL: 'error',
      ...env,
    },
    args,
    { capabilities: capsOf(client), era },
  );
}

/** tools/list of the built bin for one configuration and kind of client. */
async function binTools(env: Record<string, string>, args: string[], client: Client) {
  const s = await spawnBin(env, args, client);
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
    for (const client of ['apps', 'plain'] as const) {
      it(`equals the live tools/list: ${label}, ${client === 'apps' ? 'an MCP Apps client' : 'a client without Apps'}`, async () => {
        const [bin, live] = await Promise.all([binTools(env, args, client), listTools(env, cli, capsOf(client))]);
        expect(bin.length).toBeGreaterThan(0);
        expect(bin).toEqual(live);
        // The App-only Confirm button only where a View can click it (never in read-only: nothing to confirm).
        expect(bin.some((t) => t.name === CONFIRM_TOOL)).toBe(client === 'apps' && !cli.readOnly);
      });
    }
  }

  it('a Block Kit client (issue 29): the bin marks the paid and job tools supportsBlockKit, as the live list does', async () => {
    const [bin, live] = await Promise.all([binTools({}, [], 'slack'), listTools({}, {}, capsOf('slack'))]);
    expect(bin).toEqual(live);
    const marked = bin.filter((t) => (t._meta?.slack as { supportsBlockKit?: boolean } | undefined)?.supportsBlockKit);
    expect(marked.map((t) => t.name)).toEqual(expect.arrayContaining(['create_campaign', 'get_job', 'list_jobs']));
    // The same definitions otherwise as an Apps client's list: only the marks differ.
    const apps = await binTools({}, [], 'apps');
    expect(bin.map((t) => t.name)).toEqual(apps.map((t) => t.name));
    expect(JSON.stringify(apps)).not.toContain('supportsBlockKit');
  });

  it('the bin lists confirm_paid_call to a 2026-07-28 MCP Apps client (capabilities on each request envelope)', async () => {
    const s = await spawnBin({}, [], 'apps', 'modern');
    try {
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain(CONFIRM_TOOL);
    } finally {
      await s.close();
    }
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`the bin refuses confirm_paid_call by name to a client without Apps (${era}): nothing recorded`, async () => {
      const dir = join(stateDir, `refuse-${era}`);
      const s = await spawnBin({ GENPLAT_STATE_DIR: dir, GENPLAT_LOG_LEVEL: 'info' }, [], 'plain', era);
      try {
        expect((await s.client.listTools()).tools.map((t) => t.name)).not.toContain(CONFIRM_TOOL);
        const r = await s.client.callTool({
          name: CONFIRM_TOOL,
          arguments: {
            tool: 'create_talking_video',
            arguments: { avatar_id: 'a', voice_script: 'x' },
            confirmation_token: 't',
          },
        });
        expect(r.isError).toBe(true);
        const said = (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');
        expect(said).toMatch(
          /"confirm_paid_call": is the job viewer App's Confirm button, and this client declared no MCP Apps support/,
        );
        // Nothing reached the platform (its address is a closed port: a POST would be an error naming it).
        expect(s.stderr()).not.toMatch(/submitting/);
      } finally {
        await s.close();
      }
    });
  }
});
