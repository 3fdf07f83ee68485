/**
 * A campaign belongs to its caller (issue 21 item 4): over HTTP, caller B naming A's `campaign:<id>` gets the
 * answer a campaign nobody has, from get_job, wait_for_jobs, genplat://campaigns/{id} and list_jobs, and the
 * platform is never asked. A itself reads it everywhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, type TestClient, TOKEN_A, TOKEN_B, text } from './helpers.js';

let f: HttpFixture;
let a: TestClient;
let b: TestClient;
let handle: string;
let id: string;

const SCRIPT = 'Campaign owned by A.';

beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
  a = await f.connect(TOKEN_A);
  b = await f.connect(TOKEN_B);
  const r = await a.call('create_campaign', {
    items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: SCRIPT } }],
    vary: { avatar_id: ['av_ava', 'av_marcus'] },
  });
  expect(r.isError, text(r)).toBeFalsy();
  handle = sc(r).handle!;
  expect(handle).toMatch(/^campaign:/);
  id = handle.slice('campaign:'.length);
  const w = sc(await a.call('wait_for_jobs', { handles: [handle], max_wait_s: 30 }));
  expect(w.done).toBe(true);
});
afterAll(() => f.close());
beforeEach(() => f.sim.log.clear());

/** The refusal's words with the campaign id taken out: what B learns must not depend on whether it exists. */
const words = (s: string, cid: string) => s.replaceAll(cid, 'ID');

describe("B cannot read A's campaign", () => {
  it('get_job answers as for a campaign nobody has, asking the platform nothing', async () => {
    const nobody = await b.call('get_job', { handle: 'campaign:nobody_has_this' });
    expect(nobody.isError).toBe(true);
    const r = await b.call('get_job', { handle });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain(SCRIPT);
    expect(words(text(r), id)).toBe(words(text(nobody), 'nobody_has_this'));
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('wait_for_jobs refuses it by field, before any wait', async () => {
    const r = await b.call('wait_for_jobs', { handles: [handle], max_wait_s: 5 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/handles.*no campaign/);
    expect(JSON.stringify(r)).not.toContain(SCRIPT);
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('genplat://campaigns/{id} is refused', async () => {
    await expect(b.client.readResource({ uri: `genplat://campaigns/${id}` })).rejects.toThrow(/no campaign/);
    await expect(b.client.readResource({ uri: `genplat://campaigns/${encodeURIComponent(id)}` })).rejects.toThrow(
      /no campaign/,
    );
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it("B's list_jobs shows neither the campaign nor its items", async () => {
    const listB = JSON.stringify(sc(await b.call('list_jobs')).jobs);
    expect(listB).not.toContain(id);
    expect(listB).not.toContain(SCRIPT);
    expect(sc(await b.call('list_jobs')).jobs).toEqual([]);
  });

  it('A reads it through every door', async () => {
    expect(sc(await a.call('get_job', { handle })).handle).toBe(handle);
    const res = await a.client.readResource({ uri: `genplat://campaigns/${id}` });
    expect(JSON.stringify(res)).toContain('2 of 2 done');
    const rows = sc(await a.call('list_jobs')).jobs as { handle: string; summary: string }[];
    expect(rows.map((r) => r.handle)).toEqual([handle]);
    expect(rows[0]!.summary).toContain('2 of 2 done');
  });
});
