/**
 * Teams and their budgets from verified identity (issue 30 item 3): the people file's groups and an OAuth token's
 * groups claim (verified by the real verifier against a key set served on loopback) feed the same team budget on
 * a real store; the refusal names the budget, the period and what is left; a bad budgets file names entry and
 * field; the threshold log line is written once per period per budget.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDelegation } from '../../src/auth/delegation.js';
import { callerNames, ownerOf } from '../../src/auth/identity.js';
import { createTokenVerifier } from '../../src/auth/token-verifier.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { runDoctor } from '../../src/doctor.js';
import { ConfigurationError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import { evaluateAdmission } from '../../src/paid/admission.js';
import { logBudgetAlerts } from '../../src/paid/budget-alerts.js';
import { admitRules } from '../../src/paid/guard.js';
import { refusalError } from '../../src/paid/wording.js';
import { describePerson } from '../../src/people/directory.js';
import type { Store } from '../../src/store/types.js';
import { newRecord, type TestDir, testDir } from '../helpers/store-helpers.js';

const REAL = { GENPLAT_API_KEY: 'k'.repeat(32), GENPLAT_BASE_URL: 'https://api.example.com/v1' };
const ISSUER = 'https://idp.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';

let dir: string;
let jwks: Server;
let jwksUrl: string;
let sign: (claims: Record<string, unknown>) => Promise<string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-team-budgets-'));
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const addr = jwks.address();
  jwksUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/jwks`;
  sign = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
});
afterAll(async () => {
  await new Promise((r) => jwks?.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function configWith(files: { people?: string; budgets: string }, env: NodeJS.ProcessEnv = {}): Promise<Config> {
  const people = join(dir, `people-${Math.random()}.yaml`);
  const budgets = join(dir, `budgets-${Math.random()}.yaml`);
  await writeFile(people, files.people ?? '{}');
  await writeFile(budgets, files.budgets);
  return loadConfig(parseCli([]), { ...REAL, GENPLAT_PEOPLE: people, GENPLAT_BUDGETS: budgets, ...env });
}

async function problemsOf(budgets: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  try {
    await configWith({ budgets }, env);
  } catch (err) {
    if (err instanceof ConfigurationError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigurationError');
}

describe('a team budget from the people file and the OAuth groups claim', () => {
  const dirs: TestDir[] = [];
  afterAll(async () => {
    for (const d of dirs) await d.cleanup();
  });

  it('is shared by two people of the team and an OAuth caller whose token names it; outsiders are not counted', async () => {
    const config = await configWith({
      people:
        'token:alice: { groups: [video-leads] }\ntoken:bob: { name: Bob, groups: [video-leads, design] }\ntoken:carol: { groups: [design] }\n',
      budgets: 'teams:\n  video-leads: { month: 1000 }\n',
    });
    const verifier = createTokenVerifier({
      oauth: { issuer: ISSUER, resource: AUDIENCE, audience: AUDIENCE, jwksUrl, groupsClaim: 'groups' },
    });
    const info = await verifier.verifyAccessToken(await sign({ sub: 'dana', groups: ['video-leads', 'not valid!'] }));
    const dana = ownerOf(info)!;
    expect(callerNames(info).groups).toEqual(['video-leads']);
    // A token without the claim, and a Slack/static caller: the people file alone.
    const plain = await verifier.verifyAccessToken(await sign({ sub: 'erin' }));
    expect(describePerson(config.people, ownerOf(plain)!, callerNames(plain)).groups).toEqual([]);

    const d = await testDir();
    dirs.push(d);
    const clock = Date.parse('2026-11-20T10:00:00.000Z');
    const s: Store = await d.open({ now: () => new Date(clock) });
    let n = 0;
    const call = (owner: string, credits: number, names: ReturnType<typeof callerNames> = {}) => {
      const teams = describePerson(config.people, owner, names).groups;
      return s.admit(
        newRecord({ owner, fingerprint: `f${++n}`, estimate: { ...newRecord().estimate!, credits } }),
        admitRules({ config, now: () => clock }, { owner, teams, allowDuplicate: true }, { fingerprint: '' }),
        evaluateAdmission,
      );
    };
    expect((await call('token:alice', 400)).admitted).toBe(true);
    expect((await call('token:carol', 1500)).admitted).toBe(true);
    expect((await call('token:bob', 300)).admitted).toBe(true);
    expect((await call(dana, 300, callerNames(info))).admitted).toBe(true);
    const refused = await call(dana, 1, callerNames(info));
    expect(refused).toMatchObject({ admitted: false, reason: 'budget', scope: 'team', name: 'video-leads' });
    if (refused.admitted || refused.reason !== 'budget') throw new Error('expected a budget refusal');
    expect(refusalError('create_talking_video', refused).message).toBe(
      "Refused: team video-leads's monthly budget is 1,000 credits (GENPLAT_BUDGETS); 1,000 spent or held this month (since 2026-11-01 00:00 UTC), 0 left; this call is quoted at 1. Nothing was sent or charged.",
    );
    expect(refusalError('x', refused).nextStep).toContain('wait for the next month (from 2026-12-01 00:00 UTC)');
    // Dana's token without the claim: not in the team, so not refused by it.
    expect((await call(dana, 1, callerNames(plain))).admitted).toBe(true);
  });

  it('a person a delegating bot names is in none of the groups the bot token claims', async () => {
    const info = await createTokenVerifier({
      oauth: { issuer: ISSUER, resource: AUDIENCE, audience: AUDIENCE, jwksUrl },
    }).verifyAccessToken(await sign({ sub: 'bot', client_id: 'chatbot', groups: ['video-leads'] }));
    expect(callerNames(info).groups).toEqual(['video-leads']);
    const verdict = applyDelegation({ owners: [], clientIds: ['chatbot'] }, info, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'x', _meta: { 'io.genplat/on_behalf_of': { id: 'alice' } } },
    });
    if (!verdict.ok) throw new Error(verdict.message);
    expect(verdict.owner).toMatch(/:alice$/);
    expect(callerNames(verdict.authInfo).groups).toBeUndefined();
  });
});

describe('refusal wording for each scope and period', () => {
  it('names the budget, the period, since when, what is left and the quote', () => {
    const since = new Date('2026-11-23T00:00:00.000Z');
    const base = { reason: 'budget' as const, since, limit: 5000, spent: 4200, credits: 900 };
    expect(refusalError('t', { ...base, scope: 'account', period: 'week' }).message).toBe(
      "Refused: the account's weekly budget is 5,000 credits (GENPLAT_MAX_CREDITS_PER_WEEK); 4,200 spent or held this week (since 2026-11-23 00:00 UTC), 800 left; this call is quoted at 900. Nothing was sent or charged.",
    );
    expect(refusalError('t', { ...base, scope: 'person', name: 'token:alice', period: 'week' }).message).toContain(
      'your (token:alice) weekly budget is 5,000 credits (GENPLAT_BUDGETS); 4,200 spent or held this week',
    );
    expect(
      refusalError('t', { ...base, scope: 'team', name: 'ops', period: 'day', since: new Date('2026-11-29T00:00:00Z') })
        .nextStep,
    ).toContain('800 credits left today), wait for the next day (from 2026-11-30 00:00 UTC)');
  });
});

describe('GENPLAT_BUDGETS and the period ceilings: bad input names the entry and the field', () => {
  it('every problem of the file, one line each', async () => {
    expect(
      await problemsOf(
        [
          'budget: {}',
          'person: { day: 0, fortnight: 5 }',
          'people:',
          '  token:alice: { month: lots }',
          '  "not an id": { month: 5 }',
          'teams:',
          '  video-leads: { month: -5, week: .inf }',
          '  "video leads": { month: 5 }',
          '  ops: 100',
        ].join('\n'),
      ),
    ).toEqual([
      'GENPLAT_BUDGETS: unknown key "budget" (person, people, teams)',
      'GENPLAT_BUDGETS: person: day must be a positive number of displayed credits, got 0',
      'GENPLAT_BUDGETS: person: unknown period "fortnight" (day, week, month)',
      'GENPLAT_BUDGETS: people "token:alice": month must be a positive number of displayed credits, got "lots"',
      'GENPLAT_BUDGETS: people "not an id": not an owner id (e.g. slack:T0123:U0456, token:chatbot:alice)',
      'GENPLAT_BUDGETS: teams "video-leads": month must be a positive number of displayed credits, got -5',
      'GENPLAT_BUDGETS: teams "video-leads": week must be a positive number of displayed credits, got Infinity',
      'GENPLAT_BUDGETS: teams "video leads": not a team name: 1-64 letters, digits or . _ -',
      'GENPLAT_BUDGETS: teams "ops": must be a mapping of period → credits (day, week, month)',
    ]);
  });

  it('doctor fails naming the entry and field; a good file is reported with what it holds', async () => {
    const doctor = async (budgets: string) => {
      const path = join(dir, `doctor-${Math.random()}.yaml`);
      await writeFile(path, budgets);
      const lines: string[] = [];
      const code = await runDoctor({
        argv: ['doctor', '--sandbox'],
        env: { GENPLAT_BUDGETS: path, GENPLAT_STATE_DIR: dir, GENPLAT_MAX_CREDITS_PER_WEEK: '7000' },
        out: (l) => lines.push(l),
        timeoutMs: 5000,
      });
      return { code, text: lines.join('\n') };
    };
    const bad = await doctor('teams:\n  ops: { month: 0 }\n');
    expect(bad.code).toBe(1);
    expect(bad.text).toContain(
      '✗ config: GENPLAT_BUDGETS: teams "ops": month must be a positive number of displayed credits, got 0',
    );
    const good = await doctor('people:\n  token:a: { week: 10 }\nteams:\n  ops: { month: 100 }\n  qa: { day: 5 }\n');
    expect(good.text).toMatch(/✓ GENPLAT_BUDGETS: 2 team\(s\), 1 person override\(s\) from \S+doctor-/);
    expect(good.text).toContain('per day, 7000 per week');
  });

  it('the same limit in the environment and the file is refused; the period variables are whole and positive', async () => {
    expect(
      await problemsOf('person: { day: 100 }\npeople:\n  token:a: { day: 5 }\n', {
        GENPLAT_USER_MAX_CREDITS_PER_DAY: '50',
        GENPLAT_USER_BUDGETS: '{"token:a": 7}',
      }),
    ).toEqual([
      "GENPLAT_BUDGETS: person: day is also set by GENPLAT_USER_MAX_CREDITS_PER_DAY; set each person's day limit in one place",
      'GENPLAT_BUDGETS: people "token:a": day is also set by GENPLAT_USER_BUDGETS; set it in one place',
    ]);
    expect(await problemsOf('{}', { GENPLAT_MAX_CREDITS_PER_WEEK: '0', GENPLAT_MAX_CREDITS_PER_MONTH: '1e5' })).toEqual(
      ['GENPLAT_MAX_CREDITS_PER_WEEK must be at least 1', 'GENPLAT_MAX_CREDITS_PER_MONTH must be a whole number'],
    );
    const ok = await configWith(
      { budgets: '{"teams": {"ops": {"week": 10.5}}}' },
      { GENPLAT_MAX_CREDITS_PER_MONTH: '9000' },
    );
    expect(ok.budgets?.teams).toEqual({ ops: { week: 10.5 } });
    expect(ok.maxCreditsPerMonth).toBe(9000);
  });
});

describe("a person's budget is set on their entry's id, not under an alias", () => {
  it('a per-person figure under an also id is refused at start, naming the source, the alias and the person', async () => {
    const people = 'slack:T1:U1: { name: Uma, also: [token:chatbot:U1] }\n';
    let problems: string[] = [];
    try {
      await configWith(
        { people, budgets: 'people:\n  token:chatbot:U1: { month: 900 }\n  slack:T1:U1: { week: 400 }\n' },
        { GENPLAT_USER_BUDGETS: '{"token:chatbot:U1": 50}' },
      );
    } catch (err) {
      if (!(err instanceof ConfigurationError)) throw err;
      problems = err.problems;
    }
    expect(problems).toEqual([
      'GENPLAT_USER_BUDGETS: "token:chatbot:U1" is another id of the person "slack:T1:U1" (GENPLAT_PEOPLE also): a person has one budget, counted over all their ids; set it on "slack:T1:U1"',
      'GENPLAT_BUDGETS: people: "token:chatbot:U1" is another id of the person "slack:T1:U1" (GENPLAT_PEOPLE also): a person has one budget, counted over all their ids; set it on "slack:T1:U1"',
    ]);
    const ok = await configWith({ people, budgets: 'people:\n  slack:T1:U1: { week: 400 }\n' });
    expect(ok.budgets?.people).toEqual({ 'slack:T1:U1': { week: 400 } });
  });
});

describe('threshold log lines', () => {
  it('one warn line per newly written alert, after the commit; none for alerts an earlier admission wrote', async () => {
    const config = await configWith({ budgets: 'teams:\n  ops: { week: 1000 }\n' });
    const d = await testDir();
    const s = await d.open({ now: () => new Date('2026-11-24T10:00:00.000Z') });
    const lines: { msg: string; fields: unknown }[] = [];
    const log = { warn: (msg: string, fields?: unknown) => lines.push({ msg, fields }) } as unknown as Logger;
    const now = () => Date.parse('2026-11-24T10:00:00.000Z');
    let n = 0;
    const admit = async (credits: number) => {
      const res = await s.admitBundle(
        [
          {
            ...newRecord({ owner: 'token:a', fingerprint: `g${++n}` }),
            estimate: { ...newRecord().estimate!, credits },
            outcome: 'pending',
          },
        ],
        admitRules({ config, now }, { owner: 'token:a', teams: ['ops'], allowDuplicate: true }, { fingerprint: '' }),
        (items, f, r) => evaluateAdmission(items[0]!, f, r),
      );
      logBudgetAlerts(log, res);
    };
    await admit(850);
    await admit(10);
    await admit(140);
    expect(lines.map((l) => l.msg)).toEqual([
      'budget threshold: team ops reached 80 % of its week budget',
      'budget threshold: team ops reached 100 % of its week budget',
    ]);
    expect(lines[1]!.fields).toEqual({
      scope: 'team',
      name: 'ops',
      period: 'week',
      since: '2026-11-23T00:00:00.000Z',
      limit: 1000,
      spent: 1000,
      percent: 100,
    });
    await d.cleanup();
  });
});
