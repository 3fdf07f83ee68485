/**
 * Per-user daily budgets and the audit trail through the real client (issue 14 items 4-5): two callers on one
 * store (two server instances on one SQLite state dir), each within their own budget and both within the
 * account's ceiling; refusals are tool errors naming the limit; list_jobs and genplat://spend show "you";
 * the audit export matches the simulator's POSTs one to one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditExport } from '../../src/audit/cli.js';
import { AUDIT_FIELDS } from '../../src/audit/export.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { parseCsv } from '../helpers/csv.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { scanForSecret } from '../helpers/secret-scan.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
let sim: Simulator;
let alice: Harness;
let bob: Harness;

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  // Account 400 a day; every caller 200 by default, bob 300 by override. A short talking video costs 100.
  const config = { maxCreditsPerDay: 400, userMaxCreditsPerDay: 200, userBudgets: { bob: 300 } };
  alice = await startHarness({ sim, owner: 'alice', config });
  bob = await startHarness({ sim, owner: 'bob', config, stateDir: alice.stateDir });
});
afterAll(async () => {
  await bob?.close();
  await alice?.close();
  await sim?.close();
});

const video = (h: Harness, n: string) =>
  h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: `Budget take ${n}.` });

async function exportAudit(format: 'csv' | 'jsonl', extra: { user?: string; since?: Date } = {}) {
  let out = '';
  const code = await runAuditExport(
    alice.config,
    { format, since: extra.since, user: extra.user },
    createLogger('error'),
    (c) => {
      out += c;
    },
  );
  expect(code).toBe(0);
  return out;
}

describe('per-user daily budgets', () => {
  it('each caller spends up to their own budget; the next call is a tool error naming it, with 0 POSTs', async () => {
    expect(structured(await video(alice, 'a1')).status).toBe('submitted');
    expect(structured(await video(alice, 'a2')).status).toBe('submitted');
    const before = sim.log.count(POSTS);
    const refused = await video(alice, 'a3');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      // alice has no override: her limit is the default, and the refusal names the setting it came from.
      /you \(alice\) have spent or hold 200 credits today.*per-user daily budget of 200 credits \(GENPLAT_USER_MAX_CREDITS_PER_DAY\)/,
    );
    expect(text(refused)).toMatch(/ask the operator to raise your budget/);
    expect(sim.log.count(POSTS)).toBe(before);
  });

  it("another caller's budget is their own, and the account ceiling binds them all", async () => {
    expect(structured(await video(bob, 'b1')).status).toBe('submitted');
    expect(structured(await video(bob, 'b2')).status).toBe('submitted');
    // bob has 100 left of 300, but the account is at its 400.
    const before = sim.log.count(POSTS);
    const refused = await video(bob, 'b3');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/400 credits already spent or held today \(UTC\) on this account/);
    expect(sim.log.count(POSTS)).toBe(before);
  });

  it('list_jobs and genplat://spend show the caller their own line next to the account', async () => {
    const spend = structured(await alice.call('list_jobs', {})).spend as Record<string, unknown>;
    expect(spend).toMatchObject({ today_credits: 400, remaining_today: 0 });
    expect(spend.you).toEqual({
      caller: 'alice',
      today_credits: 200,
      max_credits_per_day: 200,
      remaining_today: 0,
      summary: 'you: 200 of 200 credits today (0 left)',
    });
    const res = await bob.client.readResource({ uri: 'genplat://spend' });
    const body = JSON.parse((res.contents[0] as { text: string }).text) as { you: Record<string, unknown> };
    // bob's own 100 left is capped by the account's 0.
    expect(body.you).toMatchObject({ caller: 'bob', today_credits: 200, max_credits_per_day: 300, remaining_today: 0 });
  });
});

describe('audit trail', () => {
  it('one exported row per paid POST, matched by request id; nothing for refused calls', async () => {
    const rows = (await exportAudit('jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const posts = sim.log.entries().filter((e) => e.method === POSTS.method && e.path === POSTS.path);
    expect(rows).toHaveLength(posts.length);
    expect(rows.map((r) => r.request_id).sort()).toEqual(posts.map((p) => p.requestId).sort());
    expect(rows.map((r) => r.owner)).toEqual(['alice', 'alice', 'bob', 'bob']);
    for (const r of rows) {
      expect(Object.keys(r)).toEqual([...AUDIT_FIELDS]);
      expect(r).toMatchObject({
        tool: 'create_talking_video',
        quote_credits: 100,
        consent: 'policy',
        outcome: 'submitted',
      });
    }
    const bobs = (await exportAudit('jsonl', { user: 'bob' })).trimEnd().split('\n');
    expect(bobs.map((l) => JSON.parse(l).owner)).toEqual(['bob', 'bob']);
    expect(await exportAudit('jsonl', { since: new Date(Date.now() + 60_000) })).toBe('');
  });

  it('CSV round-trips to the same rows as JSONL', async () => {
    const json = (await exportAudit('jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [header, ...lines] = parseCsv(await exportAudit('csv'));
    expect(header).toEqual([...AUDIT_FIELDS]);
    expect(lines).toHaveLength(json.length);
    lines.forEach((cells, i) => {
      const want = json[i]!;
      AUDIT_FIELDS.forEach((f, j) => {
        const v = want[f];
        expect(cells[j], f).toBe(v === null ? '' : String(v));
      });
    });
  });

  it('the export holds no API key', async () => {
    const out = [await exportAudit('csv'), await exportAudit('jsonl')].join('\n');
    expect(scanForSecret(sim.apiKey, [{ name: 'audit export', text: out }])).toEqual([]);
  });
});
