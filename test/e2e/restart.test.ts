import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';

let sim: Simulator;
let stateDir: string;
const stderr: string[] = [];

async function spawnServer(): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ENTRY],
    env: {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: stateDir,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'e2e', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const sc = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  stateDir = mkdtempSync(join(tmpdir(), 'genplat-e2e-'));
}, 120_000);

afterAll(async () => {
  await sim?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('restart', () => {
  it('a job created before a SIGKILL is listed and finished by the next server', async () => {
    // Long enough that the job is still running when the first server dies.
    sim.jobs.scriptNext({ durationMs: 3_000 });
    const first = await spawnServer();
    const created = sc(
      await first.client.callTool({
        name: 'create_talking_video',
        arguments: { avatar_id: 'av_ava', voice_script: 'Surviving a restart.' },
      }),
    );
    expect(created.status).toBe('submitted');
    const handle = created.handle as string;
    expect(handle).toMatch(/^actor_video:/);

    const pid = first.transport.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await first.client.close().catch(() => {});

    const second = await spawnServer();
    try {
      const listed = sc(await second.client.callTool({ name: 'list_jobs', arguments: {} }));
      const jobs = listed.jobs as { handle: string }[];
      expect(jobs.map((j) => j.handle)).toContain(handle);

      let status = '';
      let handles = [handle];
      // Each call waits at most max_wait_s; call again with the pending handles, as an agent would.
      for (let i = 0; i < 5 && status !== 'completed'; i++) {
        const w = sc(
          await second.client.callTool(
            { name: 'wait_for_jobs', arguments: { handles, max_wait_s: 20 } },
            {
              timeout: 60_000,
            },
          ),
        );
        status = (w.jobs as { status: string }[])[0]!.status;
        handles = (w.pending as string[]).length ? (w.pending as string[]) : handles;
      }
      expect(status).toBe('completed');
      expect(sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(1);
    } finally {
      await second.client.close();
    }
    expect(stderr.join('')).not.toContain(sim.apiKey);
  }, 120_000);
});
