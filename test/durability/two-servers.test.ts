/**
 * Two built servers (separate processes, as Claude Desktop and Claude Code would each start one) on the
 * SAME state dir, sent billable calls at the same moment. The duplicate guard and the per-day ceiling are
 * check-then-write sequences over the shared ledger; the send lock (`JobStore.exclusive`) must make them
 * atomic across processes, so exactly one POST goes out per race.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;
/**
 * Several races per test: one lucky interleaving must not hide a missing lock. Measured with the lock
 * bypassed, about 4 rounds in 10 sent two POSTs, so 10 rounds miss a broken lock about 0.4% of the time,
 * and the two tests together far less. A round costs ~0.1 s (duplicates) or one server pair's start (~0.5 s).
 */
const DUPLICATE_ROUNDS = 10;
const CEILING_ROUNDS = 5;

let sim: Simulator;
let base: string;
let servers: SpawnedServer[] = [];

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  base = mkdtempSync(join(tmpdir(), 'genplat-two-servers-'));
}, 120_000);

afterEach(async () => {
  await Promise.allSettled(servers.map((s) => s.close()));
  servers = [];
});

afterAll(async () => {
  await sim?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Two servers on one fresh state dir, each warmed up (first tool call done) so they start the race level. */
async function twoServers(name: string, extraEnv: Record<string, string> = {}): Promise<SpawnedServer[]> {
  const env = {
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_CONFIRM: 'never',
    GENPLAT_STATE_DIR: join(base, name),
    ...extraEnv,
  };
  await Promise.allSettled(servers.map((s) => s.close()));
  servers = await Promise.all([spawnServer(env), spawnServer(env)]);
  await Promise.all(servers.map((s) => s.client.callTool({ name: 'list_jobs', arguments: {} })));
  return servers;
}

const call = (s: SpawnedServer, args: Record<string, unknown>) =>
  s.client.callTool({ name: TOOL, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const outcome = (r: CallToolResult) =>
  r.isError ? 'refused' : String((r.structuredContent as { status?: unknown } | undefined)?.status);

describe('two server processes on one state dir', () => {
  it(`identical calls sent to both at once: one POST per round, the other refused as a duplicate (${DUPLICATE_ROUNDS} rounds)`, async () => {
    const [a, b] = await twoServers('duplicates');
    // Jobs stay running, so each round's first job keeps blocking its duplicate.
    sim.jobs.scriptNext({ durationMs: 600_000 }, DUPLICATE_ROUNDS * 2);
    for (let round = 0; round < DUPLICATE_ROUNDS; round++) {
      const before = sim.log.count(POSTS);
      const args = { avatar_id: 'av_marcus', voice_script: `Two hosts, one job, round ${round}.` };
      const results = await Promise.all([call(a!, args), call(b!, args)]);
      expect(sim.log.count(POSTS) - before, `round ${round}`).toBe(1);
      expect(results.map(outcome).sort(), `round ${round}`).toEqual(['refused', 'submitted']);
      expect(textOf(results.find((r) => r.isError)!)).toMatch(/duplicate/);
    }
  }, 120_000);

  it(`two different 100-credit calls at once under a 100-credit day: one POST, the other refused by the ceiling (${CEILING_ROUNDS} rounds)`, async () => {
    sim.jobs.scriptNext({ durationMs: 600_000 }, CEILING_ROUNDS * 2);
    for (let round = 0; round < CEILING_ROUNDS; round++) {
      // A fresh state dir per round: the day's spend would otherwise refuse both calls from round 2 on.
      const [a, b] = await twoServers(`ceiling-${round}`, {
        GENPLAT_MAX_CREDITS_PER_CALL: '100',
        GENPLAT_MAX_CREDITS_PER_DAY: '100',
      });
      const before = sim.log.count(POSTS);
      const results = await Promise.all([
        call(a!, { avatar_id: 'av_marcus', voice_script: `Day ceiling race ${round}, take one.` }),
        call(b!, { avatar_id: 'av_marcus', voice_script: `Day ceiling race ${round}, take two.` }),
      ]);
      expect(sim.log.count(POSTS) - before, `round ${round}`).toBe(1);
      expect(results.map(outcome).sort(), `round ${round}`).toEqual(['refused', 'submitted']);
      expect(textOf(results.find((r) => r.isError)!)).toMatch(/per-day ceiling/);
    }
  }, 120_000);
});
