/**
 * A held call under a team budget (issue 30) over real HTTP: its quote is reserved under the requester's team at
 * admission, so when the lead approves, the re-check takes the held item's own reservation out of the team's spend
 * (approval-send.ts `stillFits`) and sends it once; a second held call that no longer fits the team's week is
 * refused at admission, naming the team. The team comes from the people file's groups.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, sc, type TestClient, text } from '../http/helpers.js';

const TOKENS = { carol: 'carol-0123456789abcdef', lead: 'lead-0123456789abcdef' };
let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
let store: Store;
const clients: Record<keyof typeof TOKENS, TestClient> = {} as never;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

/** A shoppable video: 350 credits, bounded (held-send.test.ts checks it). */
const BIG = (n: number) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: `desk setup, team take ${n}`,
});

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-held-team-'));
  const write = async (name: string, body: string) => {
    await writeFile(join(dir, name), body);
    return join(dir, name);
  };
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: await write(
      'approvals.json',
      JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }),
    ),
    GENPLAT_PEOPLE: await write('people.yaml', 'token:carol: { name: Carol, groups: [ops] }\n'),
    GENPLAT_BUDGETS: await write('budgets.yaml', 'teams:\n  ops: { week: 600 }\n'),
    GENPLAT_MAX_CREDITS_PER_DAY: '100000',
  });
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'never' },
  });
  rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20 },
  );
  store = await openSqliteStore(config.stateDir);
  for (const [name, token] of Object.entries(TOKENS))
    clients[name as keyof typeof TOKENS] = await connectClient(rt.http.url, token);
});

afterAll(async () => {
  for (const c of Object.values(clients)) await c?.close().catch(() => {});
  await store?.close();
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a held call under a team week budget', () => {
  it('is reserved under the team, sent once when approved, and a second one past the week is refused', async () => {
    const first = await clients.carol.call('create_shoppable_video', BIG(1));
    expect(sc(first).status, text(first)).toBe('approval_required');
    const id = String(sc(first).handle).slice('approval:'.length);
    const req = (await store.approval(id))!.request as { bundleId: string; itemIds: string[] };
    const [item] = await store.bundleItems(req.bundleId);
    expect(item?.teams).toEqual(['ops']);
    // 350 reserved of 600: a second 350 does not fit the team's week, refused before anything is held.
    const second = await clients.carol.call('create_shoppable_video', BIG(2));
    expect(second.isError).toBe(true);
    expect(text(second)).toContain("team ops's weekly budget is 600 credits");
    expect(text(second)).toContain('350 spent or held this week');
    // Approved: its own reservation is not counted twice, so it still fits and is sent once.
    expect(
      sc(await clients.lead.call('decide_approval', { approval: `approval:${id}`, decision: 'approve' })).state,
    ).toBe('approved');
    const end = Date.now() + 20_000;
    let sent = await store.get(item!.id);
    while (sent && (sent.outcome === 'queued' || sent.outcome === 'pending') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 25));
      sent = await store.get(item!.id);
    }
    expect(sent?.outcome, JSON.stringify(sent)).toBe('submitted');
    expect(posts()).toBe(1);
  });
});
