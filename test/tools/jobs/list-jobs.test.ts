import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDayStart } from '../../../src/paid/guard.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { confirm: { mode: 'above', credits: 500 }, maxCreditsPerDay: 5000 } });
});
afterAll(() => h.close());

type Job = { handle: string; tool: string; status: string; estimate?: { credits: number }; outputs: unknown[] };

describe('list_jobs', () => {
  it('is read-only and closed-world (ledger only)', async () => {
    const { tools } = await h.client.listTools();
    expect(tools.find((x) => x.name === 'list_jobs')!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('lists jobs newest first with spend, ceilings and the confirmation policy, without calling the platform', async () => {
    const first = structured(await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'One.' }));
    const second = structured(await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Two.' }));
    await h.call('wait_for_jobs', { handles: [first.handle, second.handle], max_wait_s: 10 });
    h.sim.log.clear();

    const s = structured(await h.call('list_jobs', {}));
    expect(h.sim.log.entries()).toHaveLength(0);
    const jobs = s.jobs as Job[];
    expect(jobs.map((j) => j.handle)).toEqual([second.handle, first.handle]);
    expect(jobs[0]).toMatchObject({ tool: 'create_talking_video', status: 'completed', estimate: { credits: 100 } });
    expect(jobs[0]!.outputs).toHaveLength(1);
    expect(s.spend).toEqual({
      today_credits: 200,
      max_credits_per_day: 5000,
      remaining_today: 4800,
      max_credits_per_call: h.config.maxCreditsPerCall,
      confirmation: 'jobs above 500 credits need the user to confirm',
      // Talking videos report no charge: nothing to reconcile.
      quoted_today_credits: 200,
      charged_today_credits: 0,
      above_quote_today_credits: 0,
      jobs_above_quote_today: 0,
    });
  });

  it('filters by status and limits', async () => {
    h.sim.jobs.scriptNext({ durationMs: 60_000 });
    const running = structured(await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Three.' }));
    const s = structured(await h.call('list_jobs', { status: 'processing' }));
    expect((s.jobs as Job[]).map((j) => j.handle)).toEqual([running.handle]);
    expect(String(s.next_step)).toContain(running.handle!);
    expect((structured(await h.call('list_jobs', { limit: 1 })).jobs as Job[]).length).toBe(1);
  });

  it('rejects a limit out of range', async () => {
    const r = await h.call('list_jobs', { limit: 101 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/limit/);
  });

  it('is scoped to the caller in HTTP mode', async () => {
    const other = await startHarness({ owner: 'someone-else', sim: h.sim, stateDir: h.stateDir });
    try {
      expect((structured(await other.call('list_jobs', {})).jobs as Job[]).length).toBe(0);
      // Spend: the account's figure (what its ceiling counts, every caller), and the caller's own as `you`.
      const spend = structured(await other.call('list_jobs', {})).spend as {
        today_credits: number;
        you: { caller: string; today_credits: number };
      };
      expect(spend.today_credits).toBe(await h.jobs.spendSince(utcDayStart(Date.now())));
      expect(spend.today_credits).toBeGreaterThan(0);
      expect(spend.you).toMatchObject({ caller: 'someone-else', today_credits: 0 });
    } finally {
      await other.close();
    }
  });
});
