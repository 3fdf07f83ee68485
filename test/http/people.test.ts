/**
 * One bot, many people (issue 28 items 1-3) over the real HTTP fixture, in both eras: two people behind one Slack
 * app (Slack-signed requests) and two people behind one delegating bot (one bearer token, a person per request)
 * share nothing. Each is their own caller: jobs recorded under their own id, list_jobs / get_job / wait_for_jobs /
 * genplat://jobs, confirmation tokens and per-person budgets are theirs alone; B redeeming A's token sends nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAuditExport } from '../../src/audit/cli.js';
import { createLogger } from '../../src/log.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { callToolRaw, getTask, type Json, type RawCaller, rawModernClient } from '../helpers/raw-modern-client.js';
import { type HttpFixture, sc, startHttpFixture, type TestClient, text } from './helpers.js';
import { delegatingFetch, OLD_SLACK_SECRET, SLACK_SECRET, slackFetch } from './people-clients.js';

const BOT_TOKEN = 'chatbot-token-0123456789abcdef';
const GENERATE = { method: 'POST', path: '/video/generate' } as const;

interface Pair {
  label: string;
  token: string;
  a: { fetch: FetchLike; owner: string };
  b: { fetch: FetchLike; owner: string };
}

const PAIRS: Pair[] = [
  {
    label: 'two Slack people of one Slack app',
    token: '',
    a: { fetch: slackFetch({ team_id: 'T1', user_id: 'U_ADA' }), owner: 'slack:T1:U_ADA' },
    // B's requests are signed with the app's previous secret (a rotation in progress): still the same app.
    b: { fetch: slackFetch({ team_id: 'T1', user_id: 'U_BOB' }, OLD_SLACK_SECRET), owner: 'slack:T1:U_BOB' },
  },
  {
    label: 'two people of one delegating bot',
    token: BOT_TOKEN,
    a: { fetch: delegatingFetch({ id: 'alice', name: 'Alice A.' }), owner: 'token:chatbot:alice' },
    b: { fetch: delegatingFetch({ id: 'bob' }), owner: 'token:chatbot:bob' },
  },
];

let f: HttpFixture;
let peopleDir: string;

beforeAll(async () => {
  // The people file names Ada (a Slack person) and Alice (a bot's person); Bob is named by nobody.
  peopleDir = await mkdtemp(join(tmpdir(), 'genplat-people-'));
  const peopleFile = join(peopleDir, 'people.yaml');
  await writeFile(
    peopleFile,
    'slack:T1:U_ADA: { name: Ada Lovelace, email: ada@example.com }\ntoken:chatbot:alice: { name: "=Alice" }\n',
  );
  f = await startHttpFixture({
    confirm: { mode: 'always' },
    env: {
      GENPLAT_HTTP_TOKEN: `chatbot=${BOT_TOKEN}`,
      GENPLAT_HTTP_DELEGATING: 'chatbot',
      GENPLAT_SLACK_SIGNING_SECRETS: `${SLACK_SECRET},${OLD_SLACK_SECRET}`,
      GENPLAT_SLACK_TEAMS: 'T1',
      // Per-person budgets: B of each pair may not spend at all, A has the default (none).
      GENPLAT_PEOPLE: peopleFile,
      GENPLAT_USER_BUDGETS: JSON.stringify({ 'slack:T1:U_CAROL': 0, 'token:chatbot:carol': 0 }),
    },
  });
});
afterAll(async () => {
  await f.close();
  await rm(peopleDir, { recursive: true, force: true });
});
beforeEach(() => f.sim.log.clear());

async function ownerInStore(handle: string): Promise<string | undefined> {
  const store = await (await import('../../src/store/sqlite.js')).openSqliteStore(f.config.stateDir);
  try {
    return (await store.get(handle))?.owner;
  } finally {
    await store.close();
  }
}

describe.each(PAIRS)('$label', (pair) => {
  let a: TestClient;
  let b: TestClient;
  let handleA: string;
  let idA: string;

  beforeAll(async () => {
    a = await f.connect(pair.token, { fetch: pair.a.fetch });
    b = await f.connect(pair.token, { fetch: pair.b.fetch });
    const args = { avatar_id: 'av_ava', voice_script: `Owned by ${pair.a.owner}.` };
    const quote = sc(await a.call('create_talking_video', args));
    const created = sc(
      await a.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(created.status).toBe('submitted');
    handleA = created.handle!;
    idA = (created.remote as { id: string }).id;
  });

  it("records A's job under A's own person id, never the bot's", async () => {
    expect(await ownerInStore(handleA)).toBe(pair.a.owner);
  });

  it('list_jobs and genplat://jobs show A its job and B nothing', async () => {
    const listA = sc(await a.call('list_jobs')).jobs as { handle: string }[];
    expect(listA.map((j) => j.handle)).toContain(handleA);
    const listB = sc(await b.call('list_jobs')).jobs as { handle: string }[];
    expect(listB.map((j) => j.handle)).not.toContain(handleA);
    expect(JSON.stringify(await b.client.readResource({ uri: 'genplat://jobs' }))).not.toContain(handleA);
    expect(JSON.stringify(await a.client.readResource({ uri: 'genplat://jobs' }))).toContain(handleA);
  });

  it("get_job, wait_for_jobs and genplat://jobs/{handle} refuse B A's job without asking the platform", async () => {
    for (const args of [{ handle: handleA }, { kind: 'actor_video', id: idA }]) {
      const r = await b.call('get_job', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(text(r)).toMatch(/no such job for this caller/);
    }
    const w = await b.call('wait_for_jobs', { handles: [handleA], max_wait_s: 1 });
    expect(text(w)).toMatch(/no such job for this caller/);
    await expect(b.client.readResource({ uri: `genplat://jobs/${handleA}` })).rejects.toThrow(
      /no such job for this caller/,
    );
    expect(f.sim.log.entries()).toHaveLength(0);
    expect(sc(await a.call('get_job', { handle: handleA })).handle).toBe(handleA);
  });

  it("B redeeming A's confirmation token sends nothing; A's token still works for A", async () => {
    const args = { avatar_id: 'av_ava', voice_script: `Quote for ${pair.a.owner} only.` };
    const quote = sc(await a.call('create_talking_video', args));
    expect(quote.status).toBe('confirmation_required');
    const stolen = sc(
      await b.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(stolen.status).toBe('confirmation_required');
    expect(String(stolen.reason)).toMatch(/belongs to another caller/);
    expect(f.sim.log.count(GENERATE)).toBe(0);
    const ok = sc(
      await a.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(ok.status).toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);
  });

  it("a person's own budget binds that person only", async () => {
    // Carol is a third person of the same app/bot, with a budget of 0 (GENPLAT_USER_BUDGETS).
    const carolFetch =
      pair.token === ''
        ? slackFetch({ team_id: 'T1', user_id: 'U_CAROL' })
        : delegatingFetch({ id: 'carol', name: 'Carol' });
    const carol = await f.connect(pair.token, { fetch: carolFetch });
    const args = { avatar_id: 'av_ava', voice_script: `Carol of ${pair.label}.` };
    const quote = sc(await carol.call('create_talking_video', args));
    const r = await carol.call('create_talking_video', {
      ...args,
      confirmation_token: String(quote.confirmation_token),
    });
    expect(JSON.stringify(r)).toMatch(/per-user daily budget of 0 credits/);
    expect(JSON.stringify(r)).toContain(pair.token === '' ? 'slack:T1:U_CAROL' : 'token:chatbot:carol');
    expect(f.sim.log.count(GENERATE)).toBe(0);
  });
});

describe('the audit export names the people', () => {
  async function exported(format: 'csv' | 'jsonl'): Promise<string> {
    let out = '';
    const code = await runAuditExport(
      f.config,
      { format, since: undefined, user: undefined },
      createLogger('error', () => {}),
      (c) => {
        out += c;
      },
    );
    expect(code).toBe(0);
    return out;
  }

  it("each paid call: the requester's id, and the name and e-mail of the people file", async () => {
    const rows = (await exported('jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const of = (owner: string) => rows.find((r) => r.owner === owner);
    expect(of('slack:T1:U_ADA')).toMatchObject({ owner_name: 'Ada Lovelace', owner_email: 'ada@example.com' });
    expect(of('token:chatbot:alice')).toMatchObject({ owner_name: '=Alice', owner_email: null });
    // The CSV carries the same columns; a name a spreadsheet would run is defused.
    const csv = await exported('csv');
    expect(csv.split('\r\n')[0]).toMatch(/^ledger_id,admitted_at,owner,owner_name,owner_email,tool,/);
    expect(csv).toContain(',slack:T1:U_ADA,Ada Lovelace,ada@example.com,create_talking_video,');
    expect(csv).toContain(",token:chatbot:alice,'=Alice,,create_talking_video,");
  });

  it("a person the people file does not know is named as the request named them (the bot's name for them)", async () => {
    const dora = await f.connect(PAIRS[1]!.token, { fetch: delegatingFetch({ id: 'dora', name: 'Dora Delegated' }) });
    const args = { avatar_id: 'av_ava', voice_script: 'Named by the bot.' };
    const quote = sc(await dora.call('create_talking_video', args));
    const made = sc(
      await dora.call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token as string }),
    );
    expect(made.status).toBe('submitted');
    const rows = (await exported('jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r.owner === 'token:chatbot:dora')).toMatchObject({ owner_name: 'Dora Delegated' });
  });
});

describe.each(PAIRS)('MCP tasks and forms of $label', (pair) => {
  /** A raw 2026-07-28 caller declaring tasks, each POST rewritten as the person's client does it. */
  const taskCaller = (fetchAs: FetchLike, capabilities: object = {}): RawCaller =>
    rawModernClient(
      async (req) => {
        const headers = new Headers(req.headers);
        if (pair.token) headers.set('authorization', `Bearer ${pair.token}`);
        return fetchAs(req.url, { method: 'POST', headers, body: await req.text() });
      },
      { url: f.url, capabilities: { extensions: { [TASKS_EXTENSION]: {} }, ...capabilities } },
    );

  it("B answering A's consent form (A's requestState) sends nothing; A's own answer is sent", async () => {
    const form = { elicitation: { form: {} } };
    const a = taskCaller(pair.a.fetch, form);
    const b = taskCaller(pair.b.fetch, form);
    const args = { avatar_id: 'av_ava', voice_script: `A form of ${pair.a.owner}.` };
    const ask = await callToolRaw(a, 'create_talking_video', args);
    expect(ask.result?.resultType).toBe('input_required');
    const answer = (who: RawCaller) =>
      who(
        'tools/call',
        {
          name: 'create_talking_video',
          arguments: args,
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          requestState: ask.result?.requestState,
        },
        'create_talking_video',
      );
    const stolen = await answer(b);
    expect(stolen.result?.resultType).toBe('complete');
    expect((stolen.result?.structuredContent as Json | undefined)?.reason).toMatch(/belongs to another caller/);
    expect(f.sim.log.count(GENERATE)).toBe(0);
    const mine = await answer(a);
    expect(mine.result?.resultType).toBe('task');
    expect(f.sim.log.count(GENERATE)).toBe(1);
  });

  it("B cannot see A's task: the same answer as a task that never existed", async () => {
    const a = taskCaller(pair.a.fetch);
    const b = taskCaller(pair.b.fetch);
    const args = { avatar_id: 'av_ava', voice_script: `A task of ${pair.a.owner}.` };
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const quote = await callToolRaw(a, 'create_talking_video', args);
    const q = quote.result?.structuredContent as Json;
    const created = await callToolRaw(a, 'create_talking_video', { ...args, confirmation_token: q.confirmation_token });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result?.taskId as string;
    expect((await getTask(a, taskId)).result).toMatchObject({ taskId, status: 'working' });
    const stolen = await getTask(b, taskId);
    const unknown = await getTask(b, `${taskId.slice(0, -4)}AAAA`);
    expect(stolen.result).toBeUndefined();
    expect(stolen.error?.message).toMatch(/not found/i);
    expect(stolen.error).toEqual(unknown.error);
  });
});
