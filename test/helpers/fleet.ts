/**
 * The fleet cases of issue 10, run unchanged against N server processes on one store: two stdio servers on
 * one SQLite state dir (test/durability/two-servers.test.ts) and three on one PostgreSQL database
 * (test/fleet/postgres-fleet.test.ts). One simulator on loopback serves them all (its state is per process,
 * so each server must not run its own sandbox); its request log is the referee.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ensureBuilt, type SpawnedServer, spawnServer } from './spawn-server.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;

export interface FleetOptions {
  label: string;
  processes: number;
  /** The store env for a fresh, empty store named `name` (GENPLAT_STATE_DIR or GENPLAT_DATABASE_URL). */
  store(name: string): Promise<Record<string, string>>;
  cleanup?(): Promise<void>;
}

const call = (s: SpawnedServer, name: string, args: Record<string, unknown>) =>
  s.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const status = (r: CallToolResult) =>
  r.isError ? 'refused' : String((r.structuredContent as { status?: unknown } | undefined)?.status);
const sc = (r: CallToolResult) => (r.structuredContent ?? {}) as Record<string, unknown>;

export function fleetSuite(o: FleetOptions): void {
  describe(`${o.processes} server processes on one ${o.label} store`, () => {
    let sim: Simulator;
    let servers: SpawnedServer[] = [];

    beforeAll(async () => {
      ensureBuilt();
      sim = await startSimulator({ timing: 'test' });
    }, 120_000);
    afterEach(async () => {
      await Promise.allSettled(servers.map((s) => s.close()));
      servers = [];
      // The race cases script one long job per possible POST but send only 1 or 3: the leftovers must not
      // become the next case's jobs (the shared-job case got a 600 s job and timed out waiting on it).
      sim.jobs.clearScripts();
    });
    afterAll(async () => {
      await sim?.close();
      await o.cleanup?.();
    });

    async function fleet(name: string, extra: Record<string, string> = {}): Promise<SpawnedServer[]> {
      const env = {
        GENPLAT_BASE_URL: sim.baseUrl,
        GENPLAT_API_KEY: sim.apiKey,
        GENPLAT_CONFIRM: 'never',
        ...(await o.store(name)),
        ...extra,
      };
      // Started one after the other: the first creates the store, the rest open it.
      servers = [await spawnServer(env)];
      servers.push(...(await Promise.all(Array.from({ length: o.processes - 1 }, () => spawnServer(env)))));
      await Promise.all(servers.map((s) => call(s, 'list_jobs', {})));
      return servers;
    }
    const at = (i: number) => servers[i % servers.length]!;

    it('50 parallel identical confirmed calls spread over the processes: exactly 1 POST', async () => {
      await fleet('fifty');
      sim.jobs.scriptNext({ durationMs: 600_000 }, 50);
      const before = sim.log.count(POSTS);
      const args = { avatar_id: 'av_marcus', voice_script: 'Fifty hosts, one job.' };
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => call(at(i), TOOL, args)));
      expect(sim.log.count(POSTS) - before).toBe(1);
      expect(results.filter((r) => status(r) === 'submitted')).toHaveLength(1);
      expect(results.filter((r) => r.isError)).toHaveLength(49);
    }, 120_000);

    it('a per-day ceiling of 3 jobs: 12 different parallel calls send exactly 3 POSTs', async () => {
      await fleet('ceiling', { GENPLAT_MAX_CREDITS_PER_CALL: '100', GENPLAT_MAX_CREDITS_PER_DAY: '300' });
      sim.jobs.scriptNext({ durationMs: 600_000 }, 12);
      const before = sim.log.count(POSTS);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(at(i), TOOL, { avatar_id: 'av_marcus', voice_script: `Ceiling race, take ${i}.` }),
        ),
      );
      expect(sim.log.count(POSTS) - before).toBe(3);
      expect(results.filter((r) => status(r) === 'submitted')).toHaveLength(3);
    }, 120_000);

    it('a confirmation token is redeemed once anywhere in the fleet', async () => {
      await fleet('token', { GENPLAT_CONFIRM: 'always' });
      const args = { avatar_id: 'av_marcus', voice_script: 'One token, many hosts.', allow_duplicate: true };
      const token = sc(await call(at(0), TOOL, args)).confirmation_token;
      expect(typeof token).toBe('string');
      const before = sim.log.count(POSTS);
      const results = await Promise.all(
        Array.from({ length: 3 * o.processes }, (_, i) => call(at(i), TOOL, { ...args, confirmation_token: token })),
      );
      expect(sim.log.count(POSTS) - before).toBe(1);
      expect(results.filter((r) => status(r) === 'submitted')).toHaveLength(1);
    }, 120_000);

    it('a job submitted by one process is listed, read and waited by another; read at most once per 5 s', async () => {
      await fleet('shared');
      // Long enough for several poll intervals (5-10 s each) in every process.
      sim.jobs.scriptNext({ durationMs: 16_000 });
      const sent = sc(await call(at(0), TOOL, { avatar_id: 'av_marcus', voice_script: 'Shared job.' }));
      const handle = String(sent.handle);
      const listed = sc(await call(at(1), 'list_jobs', {}));
      expect(JSON.stringify(listed)).toContain(handle);
      const read = sc(await call(at(1), 'get_job', { handle }));
      expect(read.handle).toBe(handle);
      // Every process waits on it at once until it completes.
      const waits = await Promise.all(
        servers.map(async (s) => {
          for (let i = 0; i < 10; i++) {
            const r = sc(await call(s, 'wait_for_jobs', { handles: [handle] }));
            const job = (r.jobs as { status: string }[])[0]!;
            if (job.status === 'completed' || job.status === 'failed') return job.status;
          }
          return 'timeout';
        }),
      );
      expect(waits.every((w) => w === 'completed')).toBe(true);
      const id = handle.split(':')[1];
      const reads = sim.log
        .entries()
        .filter((e) => e.method === 'GET' && e.query.id === id)
        .map((e) => e.at);
      expect(reads.length).toBeGreaterThan(1);
      // The lease is 5 s; the platform sees one read per 5 s of the whole fleet (50 ms of clock tolerance).
      for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!).toBeGreaterThanOrEqual(4_950);
    }, 120_000);
  });
}
