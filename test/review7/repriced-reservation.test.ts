/**
 * Review 7 (confirmed, then fixed): a held call re-priced higher after its approval goes back for approval, and once
 * approved again it is sent at the higher figure — but its reservation stayed the admitted quote (`estimate_credits`
 * is fixed at admission) and `stillFits` is a plain read outside the admission lock, so every budget saw the lower
 * figure and admitted other calls into room that was not there. Team ops may spend 550 a week; Carol's held video is
 * admitted at 350, re-priced to 500, approved and sent (its POST answered slowly by the simulator, as a slow
 * platform would). Her next 100-credit call must be refused (500 + 100 > 550); before the fix it was admitted and
 * sent, and the week ended at 600 of 550. The fix (approval-send.ts `raiseReservations`): reserve, then verify —
 * each held item's counted figure is raised to its re-priced one before the ceilings are judged and it is unheld.
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
let now = Date.now();
const clients: Record<keyof typeof TOKENS, TestClient> = {} as never;

const BIG = (n: number) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: `desk setup, repriced take ${n}`,
});

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-r7-repriced-'));
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
    GENPLAT_BUDGETS: await write('budgets.yaml', 'teams:\n  ops: { week: 550 }\n'),
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
    { pollIntervalMs: 20, now: () => now },
  );
  store = await openSqliteStore(config.stateDir);
  for (const [name, token] of Object.entries(TOKENS))
    clients[name as keyof typeof TOKENS] = await connectClient(rt.http.url, token);
});

afterAll(async () => {
  sim?.faults.clear();
  for (const c of Object.values(clients)) await c?.close().catch(() => {});
  await store?.close();
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

const decide = (id: string) =>
  clients.lead.call('decide_approval', { approval: `approval:${id}`, decision: 'approve' });

describe('a held call re-priced higher and approved again', () => {
  it("reserves the figure it is sent at: the team's next call that no longer fits is refused", async () => {
    const first = await clients.carol.call('create_shoppable_video', BIG(1));
    expect(sc(first).status, text(first)).toBe('approval_required');
    const id = String(sc(first).handle).slice('approval:'.length);
    const req = (await store.approval(id))!.request as { bundleId: string };
    const [item] = await store.bundleItems(req.bundleId);
    const pack = sim.data.packs.find((p) => p.value === 'gadgets')!;
    pack.credits.video = '500 credits';
    now += 6 * 60_000; // past the catalog's cache: the price is read again
    // The platform takes its time answering the POST: no figure is reported while the next call is admitted.
    sim.faults.add({ method: 'POST', path: '/shopable/videos', kind: 'delay', delayMs: 3_000 });
    expect(sc(await decide(id)).state).toBe('approved');
    const next = (await store.get(item!.id))!.held!.reason.slice('approval:'.length);
    expect((await store.approval(next))?.quoteCredits).toBe(500);
    expect(sc(await decide(next)).state).toBe('approved');
    // Sent (or being sent) at 500 of the team's 550: another 100 does not fit.
    const small = await clients.carol.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Small.' });
    expect(small.isError, text(small)).toBe(true);
    expect(text(small)).toContain("team ops's weekly budget is 550 credits");
  });
});
