/**
 * Review of issue 28 (hostile): a delegating bot is ONE credential that names whoever it likes inside its
 * namespace (`io.genplat/on_behalf_of`, a claim in the request, proven by nothing but the bot's own token). An
 * approval policy that lists a person of that bot (`token:chatbot:lead`) — or the bot itself — lets the bot be
 * both sides of the two-person rule: alice's request (made by the bot) is approved by "lead" (the same bot, the
 * same token, one more `_meta` key). Invariant 8: "An approval is taken only from a verified identity … an
 * identity claimed in tool arguments proves nothing"; docs/approvals.md refuses stdio for the same reason ("one
 * local person, who cannot be the second, proven person an approval needs").
 *
 * Fix: a decision proven only by delegation counts as its bot's; refuse it when the bot is the requester or the
 * requester's bot (or refuse delegated deciders unless the operator opts in), and make `load-policy`/doctor warn
 * on approvers inside a delegating bot's namespace.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, type TestClient } from '../http/helpers.js';
import { delegatingFetch } from '../http/people-clients.js';
import { newApproval } from '../store/approvals-suite.js';

const BOT = 'chatbot-token-0123456789abcdef';
const HOUR = 3_600_000;
let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
let store: Store;
const clients: TestClient[] = [];

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-review4-selfapprove-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(
    policy,
    JSON.stringify({
      rules: [{ when: { credits_at_least: 300 }, approvers: ['token:chatbot:lead', 'token:chatbot'] }],
    }),
  );
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: `chatbot=${BOT}`,
    GENPLAT_HTTP_DELEGATING: 'chatbot',
    GENPLAT_APPROVALS: policy,
  });
  const config: Config = { ...base, vendors: sim.vendors, logLevel: 'error' };
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

async function aliceRequest(approvers: string[]) {
  const now = Date.now();
  return store.createApproval(
    newApproval({
      requester: 'token:chatbot:alice',
      requesterName: 'Alice',
      requirements: [{ rule: 'big', approvers, required: 1 }],
      approvers,
      createdAt: now,
      expiresAt: now + HOUR,
    }),
  );
}

it("the bot that made alice's request cannot approve it by naming another of its people", async () => {
  const a = await aliceRequest(['token:chatbot:lead']);
  const asLead = await connectClient(rt.http.url, BOT, { fetch: delegatingFetch({ id: 'lead' }) });
  clients.push(asLead);
  const r = await asLead.call('decide_approval', { approval: `approval:${a.id}`, decision: 'approve' });
  // Today: approved, by the same bearer token that made the request.
  expect(r.isError).toBe(true);
  expect((await store.approval(a.id))?.state).toBe('pending');
  expect(sim.log.entries().filter((e) => e.method === 'POST')).toHaveLength(0);
});

it('the bot itself cannot approve a request it made for one of its people', async () => {
  const a = await aliceRequest(['token:chatbot']);
  const asBot = await connectClient(rt.http.url, BOT);
  clients.push(asBot);
  const r = await asBot.call('decide_approval', { approval: `approval:${a.id}`, decision: 'approve' });
  expect(r.isError).toBe(true);
  expect((await store.approval(a.id))?.state).toBe('pending');
});
