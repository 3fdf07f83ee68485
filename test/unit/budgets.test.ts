/**
 * Per-user budgets and the audit export, the pure parts: config parsing (GENPLAT_USER_*, `audit export`
 * flags), which ceiling applies to whom, the guard's pre-consent check, and the CSV/JSONL formats.
 */
import { describe, expect, it } from 'vitest';
import { AUDIT_FIELDS, foldAudit, toCsv, toJsonl } from '../../src/audit/export.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { estimate } from '../../src/jobs/envelope.js';
import type { JobStore } from '../../src/jobs/store.js';
import { userDayLimit } from '../../src/paid/budgets.js';
import { checkCeilings } from '../../src/paid/guard.js';
import type { AuditEvent } from '../../src/store/types.js';
import { parseCsv } from '../helpers/csv.js';

const REAL = { GENPLAT_API_KEY: 'k'.repeat(32), GENPLAT_BASE_URL: 'https://api.example.com/v1' };
const load = (env: NodeJS.ProcessEnv) => loadConfig(parseCli([]), env);
function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    load(env);
  } catch (err) {
    return (err as ConfigurationError).problems;
  }
  throw new Error('expected a ConfigurationError');
}

describe('GENPLAT_USER_MAX_CREDITS_PER_DAY / GENPLAT_USER_BUDGETS', () => {
  it('unset: no per-user limit; set: default plus overrides (0 = may not spend)', () => {
    const none = load(REAL);
    expect(none.userMaxCreditsPerDay).toBeUndefined();
    expect(userDayLimit(none, 'alice')).toBeUndefined();
    const c = load({
      ...REAL,
      GENPLAT_USER_MAX_CREDITS_PER_DAY: '500',
      GENPLAT_USER_BUDGETS: '{"http-abc": 2000, "intern": 0}',
    });
    expect(userDayLimit(c, 'alice')).toBe(500);
    expect(userDayLimit(c, 'http-abc')).toBe(2000);
    expect(userDayLimit(c, 'intern')).toBe(0);
    // stdio has one user: the account's ceiling alone.
    expect(userDayLimit(c, undefined)).toBeUndefined();
    // A caller id that names an Object.prototype member is just an id.
    expect(userDayLimit(c, 'constructor')).toBe(500);
    // Overrides without a default: only the named callers are limited.
    expect(userDayLimit(load({ ...REAL, GENPLAT_USER_BUDGETS: '{"bob": 10}' }), 'alice')).toBeUndefined();
  });

  it('names each bad value', () => {
    expect(problems({ ...REAL, GENPLAT_USER_MAX_CREDITS_PER_DAY: '-1' })).toEqual([
      'GENPLAT_USER_MAX_CREDITS_PER_DAY must be a whole number',
    ]);
    expect(problems({ ...REAL, GENPLAT_USER_BUDGETS: 'alice=5' })[0]).toMatch(/GENPLAT_USER_BUDGETS: not valid JSON/);
    expect(problems({ ...REAL, GENPLAT_USER_BUDGETS: '[1]' })[0]).toMatch(/must be a JSON object/);
    expect(problems({ ...REAL, GENPLAT_USER_BUDGETS: '{"a": 1.5, "b": "9", " c": 1}' })).toEqual([
      'GENPLAT_USER_BUDGETS: "a" must map to a whole, non-negative number of displayed credits',
      'GENPLAT_USER_BUDGETS: "b" must map to a whole, non-negative number of displayed credits',
      'GENPLAT_USER_BUDGETS: key " c" must be a caller id without surrounding spaces',
    ]);
  });
});

describe('genplat-mcp audit export flags', () => {
  it('parses format, since and user; needs no API key', () => {
    expect(parseCli(['audit', 'export']).audit).toEqual({ format: 'csv', since: undefined, user: undefined });
    const a = parseCli(['audit', 'export', '--format', 'jsonl', '--since', '2026-03-10', '--user', 'http-abc']);
    expect(a.audit).toEqual({ format: 'jsonl', since: new Date('2026-03-10T00:00:00.000Z'), user: 'http-abc' });
    expect(() => loadConfig(parseCli(['audit', 'export']), {})).not.toThrow();
  });

  it('refuses what it cannot mean', () => {
    for (const argv of [
      ['audit'],
      ['audit', 'import'],
      ['audit', 'export', '--format', 'xml'],
      ['audit', 'export', '--since', 'yesterday'],
      ['audit', 'export', '--since', '1'],
      ['audit', 'export', '--user', ' '],
      ['--format', 'csv'],
    ]) {
      expect(() => parseCli(argv), argv.join(' ')).toThrow(ConfigurationError);
    }
  });
});

describe('the per-user ceiling before consent', () => {
  const config = {
    maxCreditsPerCall: 500,
    maxCreditsPerDay: 10_000,
    userMaxCreditsPerDay: 300,
    userBudgets: { bob: 1000 },
  } as unknown as Config;
  const jobs = (account: number, mine: number) =>
    ({
      readAdmissionFacts: async () => ({ now: new Date(), spentToday: account, spentByOwner: mine }),
    }) as unknown as JobStore;

  it("counts the caller's own spend against their budget, naming it and what to do", async () => {
    const deps = (mine: number) => ({ config, jobs: jobs(5000, mine), now: () => Date.now() });
    expect(await checkCeilings(deps(200), estimate(100, 'x'), 'alice')).toBeUndefined();
    const err = await checkCeilings(deps(201), estimate(100, 'x'), 'alice');
    expect(err?.refusal).toBe('per_user_day');
    expect(err?.message).toMatch(/you \(alice\) have spent or hold 201 credits today.*budget of 300 credits/);
    expect(err?.nextStep).toMatch(/99 credits left today.*GENPLAT_USER_BUDGETS/);
    expect(await checkCeilings(deps(900), estimate(100, 'x'), 'bob')).toBeUndefined();
    // stdio: no per-user limit at all.
    expect(await checkCeilings(deps(10_000 - 100), estimate(100, 'x'), undefined)).toBeUndefined();
  });
});

describe('audit export formats', () => {
  const ev = (over: Partial<AuditEvent>): AuditEvent => ({
    seq: 1,
    at: '2026-03-10T12:00:00.000Z',
    event: 'admit',
    ledgerId: 'L1',
    owner: 'alice',
    tool: 'create_talking_video',
    kind: 'actor_video',
    quoteCredits: 100,
    consent: 'token',
    requestId: undefined,
    outcome: 'pending',
    status: 'submitted',
    charged: undefined,
    refunded: undefined,
    platformEstimate: undefined,
    handle: 'submission:L1',
    ...over,
  });

  it('folds a call to its admit row (who, when, quote, consent) and its newest row (outcome, charge)', () => {
    const rows = foldAudit([
      ev({}),
      ev({ seq: 2, ledgerId: 'L2', owner: '=HYPERLINK("x")', consent: 'elicitation' }),
      ev({
        seq: 3,
        event: 'settle',
        outcome: 'submitted',
        status: 'processing',
        requestId: 'r-1',
        at: '2026-03-10T12:00:01.000Z',
      }),
      ev({
        seq: 4,
        event: 'observe',
        outcome: 'submitted',
        status: 'completed',
        requestId: 'r-1',
        charged: 80,
        at: '2026-03-10T12:03:00.000Z',
      }),
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      ledger_id: 'L1',
      admitted_at: '2026-03-10T12:00:00.000Z',
      request_id: 'r-1',
      outcome: 'submitted',
      status: 'completed',
      charged_credits: 80,
      counted_credits: 80,
      updated_at: '2026-03-10T12:03:00.000Z',
      events: 3,
    });
    expect(rows[1]).toMatchObject({ ledger_id: 'L2', counted_credits: 100, events: 1, request_id: null });
    const csv = parseCsv(toCsv(rows));
    expect(csv[0]).toEqual([...AUDIT_FIELDS]);
    // A caller id a spreadsheet would run as a formula is defused; quotes survive.
    expect(csv[2]![AUDIT_FIELDS.indexOf('owner')]).toBe(`'=HYPERLINK("x")`);
    expect(
      toJsonl(rows)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual(rows);
    expect(toCsv([])).toBe(`${AUDIT_FIELDS.join(',')}\r\n`);
  });
});
