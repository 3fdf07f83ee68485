/**
 * Streams that hear by themselves over stdio (issue 29 item 2): a 2026-07-28 client of the built server (spawned as
 * a host spawns it) listens to its job's URI and hears the job finish, with a progress note, with nobody reading it
 * (no get_job, no wait_for_jobs). HTTP: test/http/listen-unread.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

let sim: Simulator;
let stateDir: string;
let server: SpawnedServer | undefined;

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  stateDir = mkdtempSync(join(tmpdir(), 'genplat-stdio-listen-'));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await sim.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('a 2026-07-28 listen stream over stdio', () => {
  it('hears a job finish with nobody reading', async () => {
    const env = {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: stateDir,
    };
    server = await spawnServer(env, [], { era: 'modern' });
    const { client } = server;
    sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = (await client.callTool({
      name: 'create_talking_video',
      arguments: { avatar_id: 'av_ava', voice_script: 'Heard over a pipe.' },
    })) as CallToolResult;
    const handle = (created.structuredContent as { handle: string }).handle;
    const uri = `genplat://jobs/${handle}`;
    const heard: { uri: string; note: unknown }[] = [];
    client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heard.push({ uri: n.params.uri, note: n.params._meta?.['io.genplat/progress'] });
    });
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    sim.jobs.all().find((j) => handle.endsWith(j.id))!.finishAt = Date.now();
    await vi.waitFor(() => expect(heard.map((h) => h.uri)).toContain(uri), { timeout: 30_000, interval: 50 });
    expect(heard.find((h) => h.uri === uri)?.note).toMatchObject({ status: 'completed', done: 1, total: 1 });
    await sub.close();
  }, 120_000);
});
