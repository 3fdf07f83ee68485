/**
 * The spend report's rules that need no store (issue 30 item 5): ISO weeks at year ends (Monday 00:00 UTC),
 * which teams a call counts in (the admit row's `teams`, else the people file's groups, else "(no team)"), the
 * [since, until) bounds, and the selection's errors naming their field.
 */
import { describe, expect, it } from 'vitest';
import { foldAudit } from '../../src/audit/export.js';
import { type PeopleDirectory, parsePeople } from '../../src/people/people-file.js';
import { parseSelection } from '../../src/report/selection.js';
import { isoWeek, NO_TEAM, periodOf, STDIO_PERSON, spendReport } from '../../src/report/spend-report.js';
import type { AuditEvent } from '../../src/store/types.js';

let seq = 0;
function admit(ledgerId: string, at: string, over: Partial<AuditEvent> = {}): AuditEvent {
  return {
    seq: ++seq,
    at,
    event: 'admit',
    ledgerId,
    owner: 'token:alice',
    tool: 'create_actor_video',
    kind: 'actor_video',
    quoteCredits: 10,
    consent: 'policy',
    requestId: undefined,
    outcome: 'pending',
    status: 'submitted',
    charged: undefined,
    refunded: undefined,
    platformEstimate: undefined,
    handle: '',
    ...over,
  };
}

describe('spend report rules', () => {
  it('ISO weeks start Monday 00:00 UTC; week 1 holds the first Thursday', () => {
    expect(isoWeek(new Date('2026-03-08T23:59:59Z'))).toBe('2026-W10'); // Sunday
    expect(isoWeek(new Date('2026-03-09T00:00:00Z'))).toBe('2026-W11'); // Monday
    expect(isoWeek(new Date('2020-12-31T12:00:00Z'))).toBe('2020-W53');
    expect(isoWeek(new Date('2021-01-03T12:00:00Z'))).toBe('2020-W53'); // Sunday after
    expect(isoWeek(new Date('2021-01-04T00:00:00Z'))).toBe('2021-W01');
    expect(isoWeek(new Date('2024-12-30T00:00:00Z'))).toBe('2025-W01'); // Monday in the next year's week 1
    expect(periodOf('month', '2026-02-28T23:59:59.999Z')).toBe('2026-02');
    expect(periodOf('day', '2026-03-01T00:00:00.000Z')).toBe('2026-03-01');
  });

  it("an alias (the people file's also) is grouped and named as its person, in the report and the audit export", () => {
    const problems: string[] = [];
    const people = parsePeople(
      { 'slack:T1:U1': { name: 'Uma', groups: ['video'], also: ['token:chatbot:U1'] } },
      problems,
    );
    expect(problems).toEqual([]);
    const events = [admit('a1', '2026-03-02T00:00:00.000Z', { owner: 'token:chatbot:U1' })];
    const byTeam = spendReport(events, { by: 'team' }, people);
    expect(byTeam.rows.map((x) => x.key)).toEqual(['video']);
    const byPerson = spendReport(events, { by: 'person' }, people);
    expect(byPerson.rows[0]?.label).toContain('Uma');
    expect(foldAudit(events, people)[0]).toMatchObject({ owner: 'token:chatbot:U1', owner_name: 'Uma' });
  });

  it("teams: the admit row's teams first, then the people file's groups, then (no team); several count in each", () => {
    const people: PeopleDirectory = new Map([['token:alice', { groups: ['video'] }]]);
    const events = [
      admit('1', '2026-03-01T00:00:00.000Z', { teams: ['ads', 'brand'] }),
      admit('2', '2026-03-01T00:00:01.000Z'),
      admit('3', '2026-03-01T00:00:02.000Z', { owner: 'token:zed' }),
      admit('4', '2026-03-01T00:00:03.000Z', { owner: undefined }),
    ];
    const r = spendReport(events, { by: 'team' }, people);
    expect(Object.fromEntries(r.rows.map((x) => [x.key, x.calls]))).toEqual({
      ads: 1,
      brand: 1,
      video: 1,
      [NO_TEAM]: 2,
    });
    expect(r.total.calls).toBe(4);
    expect(r.multi_team_calls).toBe(1);
    const p = spendReport(events, { by: 'person' }, people);
    expect(p.rows.map((x) => x.key).sort()).toEqual([STDIO_PERSON, 'token:alice', 'token:zed'].sort());
  });

  it('bounds: since inclusive, until exclusive, by admission time', () => {
    const events = [
      admit('1', '2026-03-01T00:00:00.000Z'),
      admit('2', '2026-03-01T23:59:59.999Z'),
      admit('3', '2026-03-02T00:00:00.000Z'),
    ];
    const sel = parseSelection({ by: 'day', since: '2026-03-01', until: '2026-03-02' }, []);
    expect(spendReport(events, sel).rows.map((x) => [x.key, x.calls])).toEqual([['2026-03-01', 2]]);
  });

  it('a bad selection names the field and the rule', () => {
    const problems: { field: string; rule: string }[] = [];
    parseSelection({ by: 'year', since: 'yesterday', until: '2026-03-01' }, problems);
    expect(problems.map((p) => p.field)).toEqual(['by', 'since']);
    expect(problems[0]!.rule).toMatch(/person, team, tool, day, week, month/);
    const order: typeof problems = [];
    parseSelection({ since: '2026-03-02', until: '2026-03-01T10:00' }, order);
    expect(order).toEqual([{ field: 'until', rule: 'must be after since' }]);
    // A date-time without an offset is UTC (the report's time zone), never the machine's.
    expect(parseSelection({ since: '2026-03-01T10:00' }, []).since?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
  });
});
