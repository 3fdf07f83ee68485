/**
 * kill -9 between an approval and its POST (issue 28 item 5): the built server, over HTTP, SIGKILLs itself right
 * after the lead's approval committed (`GENPLAT_TEST_KILL_AT=after_approval`), before the held item was unheld.
 * Nothing was sent. A fresh server on the same state dir finds the approved approval with its item still held
 * (its outbox sweep's recovery) and sends it, exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';
import { connectClient, sc, text } from '../http/helpers.js';

const TOKENS = { alice: 'alice-0123456789abcdef', lead: 'lead-0123456789abcdef' };
const SHOPPABLE = {
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: 'desk setup, killed after approval',
};

let sim: Simulator;
const base = mkdtempSync(join(tmpdir(), 'genplat-held-kill-'));
const children: ChildProcess[] = [];
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
}, 180_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sim?.close();
  rmSync(base, { recursive: true, force: true });
});

/** Starts the bin with --http; resolves with its URL once it says "ready on". */
function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [ENTRY, '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /ready on (http:\S+)/.exec(stderr);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before ready: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('kill -9 after the approval committed, before the POST, then restart', () => {
  it('nothing sent before the kill; the restarted server sends the held call exactly once', async () => {
    const policy = join(base, 'approvals.json');
    writeFileSync(policy, JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }));
    const env = {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: join(base, 'state'),
      GENPLAT_APPROVALS: policy,
      GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
        .map(([n, t]) => `${n}=${t}`)
        .join(','),
    };
    const doomed = await serve({ ...env, GENPLAT_TEST_KILL_AT: 'after_approval' });
    const alice = await connectClient(doomed.url, TOKENS.alice);
    const r = await alice.call('create_shoppable_video', SHOPPABLE);
    expect(sc(r).status, text(r)).toBe('approval_required');
    const handle = sc(r).handle!;
    await alice.close().catch(() => {});
    const lead = await connectClient(doomed.url, TOKENS.lead);
    // The process dies inside this call, after the decision's COMMIT.
    await lead.call('decide_approval', { approval: handle, decision: 'approve' }).catch(() => undefined);
    await exited(doomed.child);
    await lead.close().catch(() => {});
    expect(doomed.child.signalCode).toBe('SIGKILL');
    expect(posts()).toBe(0);

    let store = await openSqliteStore(join(base, 'state'));
    const id = handle.slice('approval:'.length);
    expect((await store.approval(id))?.state).toBe('approved');
    const [held] = await store.list();
    expect(held?.outcome).toBe('queued');
    expect(held?.held?.reason).toBe(handle);
    await store.close();

    const after = await serve(env);
    try {
      for (let i = 0; i < 2400 && posts() < 1; i++) await new Promise((res) => setTimeout(res, 25));
      expect(posts()).toBe(1);
      store = await openSqliteStore(join(base, 'state'));
      for (let i = 0; i < 2400; i++) {
        const [rec] = await store.list();
        if (rec && rec.outcome !== 'queued' && rec.outcome !== 'pending') break;
        await new Promise((res) => setTimeout(res, 25));
      }
      const [sent] = await store.list();
      expect(sent?.outcome).toBe('submitted');
      await store.close();
      expect(posts()).toBe(1);
    } finally {
      after.child.kill('SIGTERM');
      await exited(after.child);
    }
  }, 180_000);
});
