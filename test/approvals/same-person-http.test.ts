/**
 * One person, several ids, over real HTTP (the runtime, its store and the simulator): Uma asks through the
 * delegating bot (`token:chatbot:U1`) and tries to approve her own request with her own token (`token:uma`), which
 * the people file says is the same person (`also`). The server refuses, saying why, records nothing and sends
 * nothing; Lena, another person the policy lists, approves it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { decisionRefusal } from '../../src/approvals/wording.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, type TestClient } from '../http/helpers.js';
import { delegatingFetch } from '../http/people-clients.js';

const TOKENS = {
  chatbot: 'chatbot-token-0123456789abcdef',
  uma: 'uma-token-0123456789abcdef',
  lead: 'lead-token-0123456789abcdef',
};
const ARGS = { avatar_id: 'av_ava', voice_script: 'Asked through the bot, approved by someone else.' };
let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
let store: Store;
const clients: TestClient[] = [];

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-same-person-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(policy, JSON.stringify({ rules: [{ when: {}, approvers: ['token:uma', 'token:lead'] }] }));
  const people = join(dir, 'people.yaml');
  await writeFile(
    people,
    'token:uma:\n  name: Uma One\n  also: ["token:chatbot:U1"]\ntoken:lead:\n  name: Lena Lead\n',
  );
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_HTTP_DELEGATING: 'chatbot',
    GENPLAT_APPROVALS: policy,
    GENPLAT_PEOPLE: people,
  });
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'always' },
  });
  rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20 },
  );
  store = await openSqliteStore(config.stateDir);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await store?.close();
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

async function client(token: string, fetch?: ReturnType<typeof delegatingFetch>) {
  const c = await connectClient(rt.http.url, token, fetch ? { fetch } : {});
  clients.push(c);
  return c;
}
const sc = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, string>;
const text = (r: { content?: unknown }) => JSON.stringify(r.content);

it('refuses the requester under her other id, records and sends nothing; another person approves', async () => {
  const asUma = await client(TOKENS.chatbot, delegatingFetch({ id: 'U1' }));
  const quote = sc(await asUma.call('create_talking_video', ARGS));
  const held = sc(await asUma.call('create_talking_video', { ...ARGS, confirmation_token: quote.confirmation_token }));
  expect(held.status).toBe('approval_required');
  const id = held.handle!.slice('approval:'.length);
  expect((await store.approval(id))?.requester).toBe('token:chatbot:U1');

  const umaHerself = await client(TOKENS.uma);
  const decide = { approval: held.handle, decision: 'approve' };
  const refused = await umaHerself.call('decide_approval', decide);
  expect(refused.isError).toBe(true);
  expect(text(refused)).toContain(decisionRefusal('same_person').slice(0, 60));
  const after = await store.approval(id);
  expect(after?.state).toBe('pending');
  expect(after?.decisions).toHaveLength(0);
  expect(sim.log.count({ method: 'POST' })).toBe(0);

  const lead = await client(TOKENS.lead);
  const approved = await lead.call('decide_approval', decide);
  expect(approved.isError, text(approved)).toBeFalsy();
  expect(sc(approved).state).toBe('approved');
});
