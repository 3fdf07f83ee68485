/**
 * Two callers on one HTTP server (two tokens) share the ledger and the platform account, but neither can
 * see, read, wait on or confirm the other's jobs: list_jobs, get_job, wait_for_jobs, genplat://jobs(/…) and
 * confirmation tokens are all bound to the caller.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownerId } from '../../src/transports/http-auth.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, TOKEN_A, TOKEN_B, text } from './helpers.js';

let f: HttpFixture;
let a: TestClient;
let b: TestClient;
let handleA: string;
let idA: string;

const GENERATE = { method: 'POST', path: '/video/generate' } as const;

beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'always' } });
  a = await f.connect(TOKEN_A);
  b = await f.connect(TOKEN_B);
  const args = { avatar_id: 'av_ava', voice_script: 'Owned by A.' };
  const quote = sc(await a.call('create_talking_video', args));
  const created = sc(
    await a.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
  );
  expect(created.status).toBe('submitted');
  handleA = created.handle!;
  idA = (created.remote as { id: string }).id;
});
afterAll(() => f.close());
beforeEach(() => f.sim.log.clear());

describe('per-caller isolation', () => {
  it("records A's job with A's owner id (a hash, never the token)", async () => {
    const rec = await (await import('../../src/store/sqlite.js')).openSqliteStore(f.config.stateDir);
    try {
      const r = await rec.get(handleA);
      expect(r?.owner).toBe(ownerId(TOKEN_A));
      expect(JSON.stringify(r)).not.toContain(TOKEN_A);
    } finally {
      await rec.close();
    }
  });

  it('list_jobs and genplat://jobs show A its job and B nothing', async () => {
    const listA = sc(await a.call('list_jobs')).jobs as { handle: string }[];
    expect(listA.map((j) => j.handle)).toContain(handleA);
    const listB = sc(await b.call('list_jobs')).jobs as { handle: string }[];
    expect(listB.map((j) => j.handle)).not.toContain(handleA);
    const resB = await b.client.readResource({ uri: 'genplat://jobs' });
    expect(JSON.stringify(resB)).not.toContain(handleA);
    const resA = await a.client.readResource({ uri: 'genplat://jobs' });
    expect(JSON.stringify(resA)).toContain(handleA);
  });

  it("get_job refuses B A's handle, and A's raw id, without asking the platform", async () => {
    for (const args of [{ handle: handleA }, { kind: 'actor_video', id: idA }]) {
      const r = await b.call('get_job', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(text(r)).toMatch(/no such job for this caller/);
      expect(JSON.stringify(r)).not.toContain('Owned by A');
    }
    expect(f.sim.log.entries()).toHaveLength(0);
    // A itself still reads it.
    expect(sc(await a.call('get_job', { handle: handleA })).handle).toBe(handleA);
  });

  it("wait_for_jobs refuses B A's handle before waiting", async () => {
    const r = await b.call('wait_for_jobs', { handles: [handleA], max_wait_s: 1 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/handles\[0\].*no such job for this caller/);
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it("genplat://jobs/{handle} refuses B A's job", async () => {
    await expect(b.client.readResource({ uri: `genplat://jobs/${handleA}` })).rejects.toThrow(
      /no such job for this caller/,
    );
    expect(f.sim.log.entries()).toHaveLength(0);
    const mine = await a.client.readResource({ uri: `genplat://jobs/${handleA}` });
    expect(JSON.stringify(mine)).toContain(handleA);
  });

  it("B cannot use A's confirmation token", async () => {
    const args = { avatar_id: 'av_ava', voice_script: 'Quote for A only.' };
    const quote = sc(await a.call('create_talking_video', args));
    expect(quote.status).toBe('confirmation_required');
    const stolen = sc(
      await b.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(stolen.status).toBe('confirmation_required');
    expect(String(stolen.reason)).toMatch(/belongs to another caller/);
    expect(f.sim.log.count(GENERATE)).toBe(0);
    // Still good for A (the refused attempt did not burn it).
    const ok = sc(
      await a.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(ok.status).toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);
  });
});
