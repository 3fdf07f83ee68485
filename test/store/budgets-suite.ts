/**
 * Budgets by period and team (issue 30 items 3-4), run unchanged on each backend (budgets-sqlite.test.ts,
 * budgets-postgres.test.ts): the rules are built by the real `admitRules` from a config, the store admits under
 * its lock with the real rule, and one movable clock drives both (the store's `now` and the periods' starts).
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { NewJobRecord } from '../../src/jobs/store.js';
import { evaluateAdmission, evaluateCampaignAdmission } from '../../src/paid/admission.js';
import { parseBudgets } from '../../src/paid/budgets-file.js';
import { admitRules } from '../../src/paid/guard.js';
import { parsePeople } from '../../src/people/people-file.js';
import type { BundleItem, Store } from '../../src/store/types.js';
import type { Backend } from './suite.js';

/** A config with the budgets under test; the day ceilings far away unless a test sets them. */
function config(over: Partial<Config> & { file?: unknown } = {}): Config {
  const problems: string[] = [];
  const budgets = over.file === undefined ? undefined : parseBudgets(over.file, problems);
  if (problems.length) throw new Error(problems.join('\n'));
  return {
    maxCreditsPerCall: 100_000,
    maxCreditsPerDay: 1_000_000,
    userBudgets: {},
    ...(budgets ? { budgets } : {}),
    ...over,
  } as Config;
}

function intent(fingerprint: string, owner: string | undefined, credits: number): NewJobRecord {
  return {
    tool: 'create_talking_video',
    kind: 'actor_video',
    fingerprint,
    summary: 'a test job',
    estimate: { credits, api_units: credits / 100, basis: 'test', bounded: true },
    consent: 'policy',
    owner,
  };
}

export function budgetsSuite(name: string, backend: Backend): void {
  describe(`${name}: budgets by week, month and team`, () => {
    let clock = Date.parse('2026-11-25T12:00:00.000Z');
    let n = 0;
    async function fresh(iso: string): Promise<Store> {
      clock = Date.parse(iso);
      return (await backend.create()).open({ now: () => new Date(clock) });
    }
    /** One call of `owner` (in `teams`) under `cfg`, admitted or refused by the store. */
    const call = (s: Store, cfg: Config, owner: string | undefined, credits: number, teams?: string[]) =>
      s.admit(
        intent(`fp-${++n}`, owner, credits),
        admitRules({ config: cfg, now: () => clock }, { owner, teams, allowDuplicate: true }, { fingerprint: '' }),
        evaluateAdmission,
      );

    it('the account week: exactly the limit is admitted, one credit over is refused naming the week', async () => {
      const s = await fresh('2026-11-25T12:00:00.000Z'); // a Wednesday; the week began Monday 23rd
      const cfg = config({ maxCreditsPerWeek: 1000 });
      expect((await call(s, cfg, undefined, 600)).admitted).toBe(true);
      clock = Date.parse('2026-11-27T09:00:00.000Z');
      expect((await call(s, cfg, undefined, 400)).admitted).toBe(true);
      expect(await call(s, cfg, undefined, 1)).toEqual({
        admitted: false,
        reason: 'budget',
        scope: 'account',
        period: 'week',
        since: new Date('2026-11-23T00:00:00.000Z'),
        limit: 1000,
        spent: 1000,
        credits: 1,
      });
      await s.close();
    });

    it("a person's month (file default, override per period): exactly the limit, then refused; others not counted", async () => {
      const s = await fresh('2026-11-03T08:00:00.000Z');
      const cfg = config({
        file: { person: { month: 500, week: 10_000 }, people: { 'token:bob': { month: 800 } } },
      });
      expect((await call(s, cfg, 'token:alice', 300)).admitted).toBe(true);
      expect((await call(s, cfg, 'token:bob', 700)).admitted).toBe(true);
      expect((await call(s, cfg, 'token:alice', 200)).admitted).toBe(true);
      expect(await call(s, cfg, 'token:alice', 1)).toMatchObject({
        reason: 'budget',
        scope: 'person',
        name: 'token:alice',
        period: 'month',
        limit: 500,
        spent: 500,
      });
      // Bob's override (800) replaces the default month; his week is still the default's.
      expect((await call(s, cfg, 'token:bob', 100)).admitted).toBe(true);
      expect(await call(s, cfg, 'token:bob', 1)).toMatchObject({ scope: 'person', name: 'token:bob', limit: 800 });
      await s.close();
    });

    it("one person's ids (the people file's also) spend one budget, by day and by month; another person is not counted", async () => {
      const s = await fresh('2026-11-03T08:00:00.000Z');
      const problems: string[] = [];
      const people = parsePeople(
        { 'slack:T1:U1': { name: 'Uma', also: ['token:chatbot:U1'] }, 'slack:T1:U2': { name: 'Vic' } },
        problems,
      );
      expect(problems).toEqual([]);
      const cfg = config({ people, userMaxCreditsPerDay: 300, file: { person: { month: 500 } } });
      // The day: 200 as the bot's id for her, then 100 as herself reaches 300; one more credit under either id is over.
      expect((await call(s, cfg, 'token:chatbot:U1', 200)).admitted).toBe(true);
      expect((await call(s, cfg, 'slack:T1:U1', 100)).admitted).toBe(true);
      expect(await call(s, cfg, 'slack:T1:U1', 1)).toMatchObject({
        admitted: false,
        reason: 'per_user_day',
        owner: 'slack:T1:U1',
        spent: 300,
      });
      expect(await call(s, cfg, 'token:chatbot:U1', 1)).toMatchObject({ admitted: false, reason: 'per_user_day' });
      // Another person's day is their own.
      expect((await call(s, cfg, 'slack:T1:U2', 300)).admitted).toBe(true);
      // The month, on later days: 300 + 200 = 500 is exactly the limit, one more under either id is refused.
      clock = Date.parse('2026-11-04T08:00:00.000Z');
      expect((await call(s, cfg, 'slack:T1:U1', 200)).admitted).toBe(true);
      clock = Date.parse('2026-11-05T08:00:00.000Z');
      expect(await call(s, cfg, 'token:chatbot:U1', 1)).toMatchObject({
        admitted: false,
        reason: 'budget',
        scope: 'person',
        name: 'slack:T1:U1',
        period: 'month',
        spent: 500,
      });
      await s.close();
    });

    it("one person's ids are one requester to the duplicate rule: the same request under the other id is refused", async () => {
      const s = await fresh('2026-11-03T08:00:00.000Z');
      const problems: string[] = [];
      const people = parsePeople({ 'slack:T1:U1': { also: ['token:chatbot:U1'] }, 'slack:T1:U2': {} }, problems);
      const cfg = config({ people });
      const same = (owner: string) =>
        s.admit(
          intent('fp-same-request', owner, 100),
          admitRules(
            { config: cfg, now: () => clock },
            { owner, allowDuplicate: false },
            { fingerprint: 'fp-same-request' },
          ),
          evaluateAdmission,
        );
      const first = await same('token:chatbot:U1');
      expect(first.admitted).toBe(true);
      const again = await same('slack:T1:U1');
      expect(again).toMatchObject({ admitted: false, reason: 'duplicate' });
      if (again.admitted || again.reason !== 'duplicate' || !first.admitted) throw new Error('expected a duplicate');
      expect(again.record.id).toBe(first.record.id);
      // Another person asking the same is not a duplicate of hers.
      expect((await same('slack:T1:U2')).admitted).toBe(true);
      await s.close();
    });

    it('a team budget is shared by its members, outsiders are not counted, and what was admitted under the team stays its spend after someone leaves', async () => {
      const s = await fresh('2026-11-10T10:00:00.000Z');
      const cfg = config({ file: { teams: { 'video-leads': { month: 1000 } } } });
      expect((await call(s, cfg, 'token:alice', 600, ['video-leads'])).admitted).toBe(true);
      expect((await call(s, cfg, 'token:carol', 5000, ['design'])).admitted).toBe(true);
      expect((await call(s, cfg, 'token:dave', 5000)).admitted).toBe(true);
      expect((await call(s, cfg, 'token:bob', 400, ['design', 'video-leads'])).admitted).toBe(true);
      expect(await call(s, cfg, 'token:bob', 1, ['video-leads'])).toMatchObject({
        reason: 'budget',
        scope: 'team',
        name: 'video-leads',
        period: 'month',
        since: new Date('2026-11-01T00:00:00.000Z'),
        limit: 1000,
        spent: 1000,
        credits: 1,
      });
      // Alice leaves the team: her new calls are not the team's, but her 600 of this month still are.
      expect((await call(s, cfg, 'token:alice', 50)).admitted).toBe(true);
      expect(await call(s, cfg, 'token:bob', 1, ['video-leads'])).toMatchObject({ spent: 1000 });
      // The records carry the teams they were admitted under, and so does the audit's admit row.
      const [bobs] = await s.list({ owner: 'token:bob' });
      expect(bobs?.teams).toEqual(['design', 'video-leads']);
      const audit = await s.auditEvents({ owner: 'token:bob' });
      expect(audit.map((a) => a.teams)).toEqual([['design', 'video-leads']]);
      await s.close();
    });

    it('across the week boundary: Sunday 23:59:59.999 is last week, Monday 00:00 UTC starts a new one', async () => {
      const s = await fresh('2026-11-29T23:59:59.999Z'); // Sunday
      const cfg = config({ maxCreditsPerWeek: 1000, file: { teams: { ops: { week: 300 } } } });
      expect((await call(s, cfg, 'token:b', 300, ['ops'])).admitted).toBe(true);
      expect((await call(s, cfg, 'token:a', 700)).admitted).toBe(true);
      expect(await call(s, cfg, 'token:a', 1)).toMatchObject({ reason: 'budget', period: 'week', spent: 1000 });
      expect(await call(s, cfg, 'token:b', 1, ['ops'])).toMatchObject({ reason: 'budget', period: 'week' });
      clock = Date.parse('2026-11-30T00:00:00.000Z'); // Monday 00:00 UTC
      expect((await call(s, cfg, 'token:a', 700)).admitted).toBe(true);
      expect((await call(s, cfg, 'token:b', 300, ['ops'])).admitted).toBe(true);
      expect(await call(s, cfg, 'token:b', 1, ['ops'])).toMatchObject({
        scope: 'account',
        period: 'week',
        since: new Date('2026-11-30T00:00:00.000Z'),
        spent: 1000,
      });
      await s.close();
    });

    it('across the month boundary: the 31st 23:59:59.999 is last month, the 1st 00:00 UTC starts a new one', async () => {
      const s = await fresh('2026-12-31T23:59:59.999Z');
      const cfg = config({ maxCreditsPerMonth: 500, file: { teams: { ops: { month: 200 } } } });
      expect((await call(s, cfg, 'token:a', 200, ['ops'])).admitted).toBe(true);
      expect(await call(s, cfg, 'token:a', 1, ['ops'])).toMatchObject({ scope: 'team', period: 'month' });
      clock = Date.parse('2027-01-01T00:00:00.000Z');
      expect((await call(s, cfg, 'token:a', 200, ['ops'])).admitted).toBe(true);
      expect(await call(s, cfg, 'token:a', 1, ['ops'])).toMatchObject({
        scope: 'team',
        name: 'ops',
        since: new Date('2027-01-01T00:00:00.000Z'),
        spent: 200,
      });
      expect((await call(s, cfg, 'token:z', 300)).admitted).toBe(true);
      expect(await call(s, cfg, 'token:z', 1)).toMatchObject({ scope: 'account', period: 'month', spent: 500 });
      await s.close();
    });

    it('a campaign is refused whole when its total crosses a team week budget, and nothing is written', async () => {
      const s = await fresh('2026-11-25T12:00:00.000Z');
      const cfg = config({ file: { teams: { ops: { week: 1000 } } } });
      expect((await call(s, cfg, 'token:a', 300, ['ops'])).admitted).toBe(true);
      const rules = admitRules(
        { config: cfg, now: () => clock },
        { owner: 'token:b', teams: ['ops'], allowDuplicate: true },
        { fingerprint: '' },
      );
      const items = (credits: number[]): BundleItem[] =>
        credits.map((c, index) => ({
          ...intent(`camp-${index}-${c}`, 'token:b', c),
          outcome: 'queued' as const,
          campaign: {
            id: `c-${credits.join('-')}`,
            fingerprint: `cfp-${credits.join('-')}`,
            index,
            total: credits.length,
            input: {},
            request: { route: '/video/generate', body: { index } },
            varied: {},
            sendBy: new Date(clock + 3_600_000).toISOString(),
          },
        }));
      const before = (await s.list()).length;
      expect(await s.admitBundle(items([300, 300, 101]), rules, evaluateCampaignAdmission)).toMatchObject({
        admitted: false,
        reason: 'budget',
        scope: 'team',
        name: 'ops',
        period: 'week',
        spent: 300,
        credits: 701,
      });
      expect(await s.list()).toHaveLength(before);
      const ok = await s.admitBundle(items([300, 300, 100]), rules, evaluateCampaignAdmission);
      expect(ok.admitted).toBe(true);
      if (ok.admitted) expect(ok.records.every((r) => r.teams?.includes('ops'))).toBe(true);
      await s.close();
    });

    it('alerts: 80 % then 100 % of each budget, once per period, again in the next period; newly written ones are returned', async () => {
      const s = await fresh('2026-11-10T10:00:00.000Z');
      const cfg = config({ maxCreditsPerWeek: 10_000, file: { teams: { ops: { month: 1000 } } } });
      const alerts = async (credits: number) => {
        const res = await call(s, cfg, 'token:a', credits, ['ops']);
        if (!res.admitted) throw new Error(res.reason);
        const written = (await s.events()).filter((e) => e.type === 'budget.threshold');
        return { written, count: written.length };
      };
      // Bundle results carry the alerts this admission wrote.
      const bundle = async (credits: number) => {
        const r = admitRules(
          { config: cfg, now: () => clock },
          { owner: 'token:a', teams: ['ops'], allowDuplicate: true },
          { fingerprint: '' },
        );
        const res = await s.admitBundle(
          [{ ...intent(`b-${++n}`, 'token:a', credits), outcome: 'pending' }],
          r,
          (items, f, rr) => evaluateAdmission(items[0]!, f, rr),
        );
        if (!res.admitted) throw new Error(res.reason);
        return (res.alerts ?? []).map((e) => `${e.body.data.scope}:${e.body.data.period}:${e.body.data.percent}`);
      };
      expect((await alerts(700)).count).toBe(0);
      expect(await bundle(100)).toEqual(['team:month:80']);
      expect(await bundle(50)).toEqual([]);
      const { written } = await alerts(150);
      expect(written.map((e) => e.body.data)).toEqual([
        expect.objectContaining({
          scope: 'team',
          name: 'ops',
          period: 'month',
          percent: 80,
          limit: 1000,
          spent: 800,
          since: '2026-11-01T00:00:00.000Z',
        }),
        expect.objectContaining({ scope: 'team', name: 'ops', period: 'month', percent: 100, spent: 1000 }),
      ]);
      expect(new Set(written.map((e) => e.subject))).toEqual(new Set(['budget:team:ops:month']));
      // Over the budget: refused, no event.
      expect((await call(s, cfg, 'token:a', 1, ['ops'])).admitted).toBe(false);
      // The next month: 80 % again, once.
      clock = Date.parse('2026-12-01T00:00:00.000Z');
      expect(await bundle(850)).toEqual(['team:month:80']);
      expect(await bundle(10)).toEqual([]);
      expect((await s.events()).filter((e) => e.type === 'budget.threshold')).toHaveLength(3);
      await s.close();
    });

    it('two instances racing one team week budget: exactly the budget is admitted', async () => {
      const loc = await backend.create();
      clock = Date.parse('2026-11-25T12:00:00.000Z');
      const a = await loc.open({ now: () => new Date(clock) });
      const b = await loc.open({ now: () => new Date(clock) });
      const cfg = config({ file: { teams: { ops: { week: 1000 } } } });
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => call(i % 2 ? a : b, cfg, `token:p${i % 5}`, 100, ['ops'])),
      );
      expect(results.filter((r) => r.admitted)).toHaveLength(10);
      for (const r of results.filter((x) => !x.admitted)) expect(r).toMatchObject({ reason: 'budget', spent: 1000 });
      expect((await a.events()).filter((e) => e.type === 'budget.threshold')).toHaveLength(2);
      await a.close();
      await b.close();
    });

    it('the teams of a record cannot be rewritten or deleted (append-only)', async () => {
      const loc = await backend.create();
      clock = Date.parse('2026-11-10T10:00:00.000Z');
      const s = await loc.open({ now: () => new Date(clock) });
      const cfg = config({ file: { teams: { ops: { month: 1000 } } } });
      expect((await call(s, cfg, 'token:a', 900, ['ops'])).admitted).toBe(true);
      const table = loc.jobsTable === 'jobs' ? 'job_teams' : 'genplat_job_teams';
      await expect(loc.exec(`UPDATE ${table} SET team = 'other'`)).rejects.toThrow(/append-only/);
      await expect(loc.exec(`DELETE FROM ${table}`)).rejects.toThrow(/append-only/);
      // Nor the record's own copy, which later audit rows are written from.
      const json = `replace(data, '"teams":["ops"]', '"teams":["other"]')`;
      await expect(loc.exec(`UPDATE ${loc.jobsTable} SET data = ${json}`)).rejects.toThrow(/teams/);
      expect(await call(s, cfg, 'token:b', 101, ['ops'])).toMatchObject({ reason: 'budget', spent: 900 });
      await s.close();
    });
  });
}
