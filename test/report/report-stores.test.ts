/**
 * The spend report's totals equal the audit's (issue 30 item 5), on SQLite and on PostgreSQL: paid calls written
 * through the store's real admit / settle / observe path (and a campaign's admitBundle / claimItem), folded by
 * the audit export and summed by the report, by person, team, tool, day, ISO week and month. The scenario: a
 * completed job, a refunded one, a failed one, a two-item campaign; alice in team video, bob in team audio,
 * carol in both (her calls count in both team rows, once in the total).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { foldAudit } from '../../src/audit/export.js';
import { evaluateAdmission, evaluateCampaignAdmission } from '../../src/paid/admission.js';
import type { PeopleDirectory } from '../../src/people/people-file.js';
import { recordedNames } from '../../src/report/recorded-names.js';
import { spendReport } from '../../src/report/spend-report.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { BundleItem, Store } from '../../src/store/types.js';
import { testDir } from '../helpers/store-helpers.js';
import { createTestSchema, dropTestDatabases } from '../store/pg-helper.js';
import { intent, rules } from '../store/suite.js';

afterAll(dropTestDatabases);

const PEOPLE: PeopleDirectory = new Map([
  ['token:alice', { name: 'Alice', groups: ['video'] }],
  ['token:bob', { name: 'Bob', groups: ['audio'] }],
  ['token:carol', { name: 'Carol', groups: ['video', 'audio'] }],
]);

/** Writes the scenario through `open(clock)`'s store; returns the store (open). */
async function scenario(open: (now: () => Date) => Promise<Store>): Promise<Store> {
  let clock = new Date('2026-02-28T23:30:00.000Z');
  const s = await open(() => clock);
  const single = async (over: Parameters<typeof intent>[0], credits: number) => {
    const res = await s.admit(intent(over, credits), rules({ dayStart: new Date(0) }), evaluateAdmission);
    if (!res.admitted) throw new Error(res.reason);
    return res.record;
  };
  // alice: completed, charged 90 of a 100 quote (Saturday 28 Feb, ISO week 9).
  const a1 = await single({ owner: 'token:alice', fingerprint: 'a1' }, 100);
  await s.settle(a1.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:a1' });
  await s.observe(a1.id, { status: 'completed', creditsCharged: 90, outputs: [] });
  // alice: an upscale charged 150 then refunded in full (Sunday 1 March, still week 9).
  clock = new Date('2026-03-01T10:00:00.000Z');
  const a2 = await single({ owner: 'token:alice', fingerprint: 'a2', tool: 'upscale_video', kind: 'upscale' }, 200);
  await s.settle(a2.id, { outcome: 'submitted', status: 'processing', handle: 'upscale:a2' });
  await s.observe(a2.id, { status: 'failed', creditsCharged: 150, creditsRefunded: 150 });
  // bob: failed, no charge reported (counted at its quote, the store's rule for a final job without a charge).
  clock = new Date('2026-03-01T12:00:00.000Z');
  const b1 = await single({ owner: 'token:bob', fingerprint: 'b1' }, 50);
  await s.settle(b1.id, { outcome: 'submitted', status: 'processing', handle: 'actor_video:b1' });
  await s.observe(b1.id, { status: 'failed' });
  // carol: a campaign of two items, 30 each, both completed at 30 (Monday 2 March, ISO week 10).
  clock = new Date('2026-03-02T09:00:00.000Z');
  const item = (i: number): BundleItem => ({
    ...intent(
      {
        owner: 'token:carol',
        tool: 'create_talking_video',
        fingerprint: `c-${i}`,
        campaign: {
          id: 'camp-1',
          fingerprint: 'camp-fp',
          index: i,
          total: 2,
          input: {},
          request: { route: '/video/generate', body: { i } },
          varied: { i },
          sendBy: '2026-03-02T10:00:00.000Z',
        },
      },
      30,
    ),
    outcome: 'queued',
  });
  const bundle = await s.admitBundle([item(0), item(1)], rules({ dayStart: new Date(0) }), evaluateCampaignAdmission);
  if (!bundle.admitted) throw new Error(bundle.reason);
  for (const [i, rec] of bundle.records.entries()) {
    await s.claimItem(rec.id, { outcome: 'pending' });
    await s.settle(rec.id, { outcome: 'submitted', status: 'processing', handle: `actor_video:c${i}` });
    await s.observe(rec.id, { status: 'completed', creditsCharged: 30, outputs: [] });
  }
  return s;
}

const figures = (calls: number, quoted: number, charged: number, refunded: number, counted: number) => ({
  calls,
  quoted_credits: quoted,
  charged_credits: charged,
  refunded_credits: refunded,
  counted_credits: counted,
});
const rowsOf = (r: ReturnType<typeof spendReport>) =>
  Object.fromEntries(r.rows.map(({ key, label: _label, ...f }) => [key, f]));

async function checks(s: Store): Promise<void> {
  const events = await s.auditEvents();
  // The audit's own figures, as `audit export` folds them: the report must say the same.
  const calls = foldAudit(events, PEOPLE);
  const sum = (f: 'quote_credits' | 'charged_credits' | 'refunded_credits' | 'counted_credits') =>
    calls.reduce((n, c) => n + (typeof c[f] === 'number' ? (c[f] as number) : 0), 0);
  const audit = figures(
    calls.length,
    sum('quote_credits'),
    sum('charged_credits'),
    sum('refunded_credits'),
    sum('counted_credits'),
  );
  expect(audit).toEqual(figures(5, 410, 300, 150, 200));
  for (const by of ['person', 'team', 'tool', 'day', 'week', 'month'] as const) {
    expect(spendReport(events, { by }, PEOPLE).total, by).toEqual(audit);
  }
  const person = spendReport(events, { by: 'person' }, PEOPLE);
  expect(rowsOf(person)).toEqual({
    'token:alice': figures(2, 300, 240, 150, 90),
    'token:bob': figures(1, 50, 0, 0, 50),
    'token:carol': figures(2, 60, 60, 0, 60),
  });
  expect(person.rows.map((r) => r.label)).toEqual(['Alice', 'Carol', 'Bob']);
  const team = spendReport(events, { by: 'team' }, PEOPLE);
  expect(rowsOf(team)).toEqual({
    video: figures(4, 360, 300, 150, 150),
    audio: figures(3, 110, 60, 0, 110),
  });
  expect(team.multi_team_calls).toBe(2);
  expect(rowsOf(spendReport(events, { by: 'tool' }, PEOPLE))).toEqual({
    create_actor_video: figures(2, 150, 90, 0, 140),
    upscale_video: figures(1, 200, 150, 150, 0),
    create_talking_video: figures(2, 60, 60, 0, 60),
  });
  expect(rowsOf(spendReport(events, { by: 'day' }, PEOPLE))).toEqual({
    '2026-02-28': figures(1, 100, 90, 0, 90),
    '2026-03-01': figures(2, 250, 150, 150, 50),
    '2026-03-02': figures(2, 60, 60, 0, 60),
  });
  expect(rowsOf(spendReport(events, { by: 'week' }, PEOPLE))).toEqual({
    '2026-W09': figures(3, 350, 240, 150, 140),
    '2026-W10': figures(2, 60, 60, 0, 60),
  });
  expect(rowsOf(spendReport(events, { by: 'month' }, PEOPLE))).toEqual({
    '2026-02': figures(1, 100, 90, 0, 90),
    '2026-03': figures(4, 310, 210, 150, 110),
  });
  // A period: [since, until), the store's `since` filter and the report's bounds together.
  const since = new Date('2026-03-01T00:00:00.000Z');
  const until = new Date('2026-03-02T00:00:00.000Z');
  expect(spendReport(await s.auditEvents({ since }), { by: 'person', since, until }, PEOPLE).total).toEqual(
    figures(2, 250, 150, 150, 50),
  );
  // A caller's own calls only (the resource's HTTP scope): bob sees bob.
  const bobs = spendReport(await s.auditEvents({ owner: 'token:bob' }), { by: 'team' }, PEOPLE);
  expect(rowsOf(bobs)).toEqual({ audio: figures(1, 50, 0, 0, 50) });
}

/** A caller the people file does not name is named as their request named them (a bot's name for them). */
async function namedByTheirRequest(s: Store): Promise<void> {
  const res = await s.admit(
    intent({ owner: 'token:dan', ownerName: 'Dan (via the bot)', fingerprint: 'd1' }, 10),
    rules({ dayStart: new Date(0) }),
    evaluateAdmission,
  );
  if (!res.admitted) throw new Error(res.reason);
  const events = await s.auditEvents();
  const names = await recordedNames(events, PEOPLE, (id) => s.get(id));
  expect([...names]).toEqual([['token:dan', 'Dan (via the bot)']]);
  const labels = spendReport(events, { by: 'person' }, PEOPLE, names).rows.map((r) => [r.key, r.label]);
  expect(labels).toContainEqual(['token:dan', 'Dan (via the bot)']);
  expect(labels).toContainEqual(['token:alice', 'Alice']);
}

describe('spend report totals equal the audit', () => {
  it('SQLite', async () => {
    const dir = await testDir();
    try {
      const s = await scenario(async (now) => dir.open({ now }));
      await checks(s);
      await namedByTheirRequest(s);
    } finally {
      await dir.cleanup();
    }
  });

  it('PostgreSQL', async () => {
    const url = await createTestSchema();
    const s = await scenario((now) => openPostgresStore(url, { now }));
    try {
      await checks(s);
      await namedByTheirRequest(s);
    } finally {
      await s.close();
    }
  });
});
