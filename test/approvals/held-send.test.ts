/**
 * Issue 28 item 5 over real HTTP (named static tokens, the real runtime, store and simulator), policy
 * "≥ 300 credits → token:lead": the requester's call answers approval_required and sends nothing (its quote is
 * reserved); the lead's approval through decide_approval sends it exactly once and the job completes; a
 * campaign of N sends N; the requester, a third person, a second decision, an expired approval send nothing; a
 * decline returns the reservation; a price that rose goes back for approval. The audit names requester and lead.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { approvalSender } from '../../src/paid/approval-send.js';
import { UNACKNOWLEDGED_GRACE_MS } from '../../src/paid/outbox.js';
import { RELEASED_UNCONFIRMED } from '../../src/paid/wording.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { BILLABLE_EXAMPLES } from '../helpers/examples.js';
import { connectClient, sc, type TestClient, text } from '../http/helpers.js';

const TOKENS = { alice: 'alice-0123456789abcdef', lead: 'lead-0123456789abcdef', bob: 'bob-0123456789abcdef' };

let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
let store: Store;
const clients: Record<keyof typeof TOKENS, TestClient> = {} as never;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

/** A shoppable video: 350 credits, bounded (checked below), distinct per test. */
const BIG = (n: number) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context: `desk setup, held take ${n}`,
});
/** A talking video: 100 credits, under the rule. */
const SMALL = (n: number) => ({ avatar_id: 'av_ava', voice_script: `Small call ${n}.` });
const TALK = (n: number) => ({ tool: 'create_talking_video', arguments: SMALL(n) });

async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let now = Date.now();

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-held-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(
    policy,
    JSON.stringify({
      rules: [
        { when: { credits_at_least: 300 }, approvers: ['token:lead'] },
        // Only the requester herself is listed: nobody else can approve alice's template videos.
        { name: 'templates by alice', when: { tools: ['create_template_video'] }, approvers: ['token:alice'] },
      ],
    }),
  );
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: policy,
    GENPLAT_MAX_CREDITS_PER_DAY: '100000',
    // bob may spend 500 a day: one held 350-credit call leaves no room for a second.
    GENPLAT_USER_BUDGETS: JSON.stringify({ 'token:bob': 500 }),
  });
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'never' },
  });
  rt = await startHttpRuntime(
    config,
    createLogger('info', (l) => process.env.HELD_DEBUG && process.stderr.write(`${l}\n`)),
    { pollIntervalMs: 20, now: () => now },
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

beforeEach(() => {
  now = Date.now();
  sim.log.clear();
});

const idOf = (handle: string | undefined) => handle!.slice('approval:'.length);

async function held(args: Record<string, unknown>, tool = 'create_shoppable_video') {
  const r = await clients.alice.call(tool, args);
  expect(r.isError, text(r)).toBeFalsy();
  const env = sc(r);
  expect(env.status, text(r)).toBe('approval_required');
  expect(env.handle).toMatch(/^approval:[0-9a-f-]{36}$/);
  return { env, id: idOf(env.handle) };
}

const decide = (who: keyof typeof TOKENS, id: string, decision: 'approve' | 'decline' = 'approve') =>
  clients[who].call('decide_approval', { approval: `approval:${id}`, decision });

async function heldItems(id: string) {
  const a = await store.approval(id);
  const req = a!.request as { bundleId: string; itemIds: string[] };
  return (await store.bundleItems(req.bundleId)).filter((r) => req.itemIds.includes(r.id));
}

describe('a call the policy holds', () => {
  it('answers approval_required with the approver and expiry, sends nothing, and reserves its quote', async () => {
    const { env, id } = await held(BIG(1));
    expect((env.estimate as { credits: number }).credits).toBeGreaterThanOrEqual(300);
    expect(JSON.stringify(env.details)).toContain('token:lead');
    expect(env.expires_at).toBeDefined();
    expect(env.reason).toMatch(/approval/i);
    expect(posts()).toBe(0);
    const items = await heldItems(id);
    expect(items).toHaveLength(1);
    expect(items[0]!.outcome).toBe('queued');
    expect(items[0]!.held?.reason).toBe(`approval:${id}`);
    // A small call below the rule goes straight through.
    const small = await clients.alice.call('create_talking_video', SMALL(1));
    expect(sc(small).status, text(small)).not.toBe('approval_required');
  });

  it('the lead approves through decide_approval: exactly one POST, and the job completes', async () => {
    const { id } = await held(BIG(2));
    expect(posts()).toBe(0);
    const r = await decide('lead', id);
    expect(r.isError, text(r)).toBeFalsy();
    expect(sc(r).state).toBe('approved');
    const sent = await until('the held call to be sent', async () => {
      const [item] = await heldItems(id);
      return item && item.outcome !== 'queued' && item.outcome !== 'pending' ? item : undefined;
    });
    expect(sent.outcome, JSON.stringify(sent)).toBe('submitted');
    expect(posts()).toBe(1);
    // The job completes: followed by its own handle (the approval's handle is the read side's, issue 28).
    const w = sc(await clients.alice.call('wait_for_jobs', { handles: [sent.handle], max_wait_s: 30 }));
    expect(w.done, JSON.stringify(w)).toBe(true);
    // A second decision, by anyone, sends nothing more.
    expect((await decide('lead', id)).isError).toBe(true);
    expect(posts()).toBe(1);
  });

  it('the requester approving, a third person, and an expired approval send nothing', async () => {
    const { id } = await held(BIG(3));
    const self = await decide('alice', id);
    expect(self.isError).toBe(true);
    const bob = await decide('bob', id);
    expect(bob.isError).toBe(true);
    expect((await store.approval(id))!.state).toBe('pending');
    // Expired: the store's clock passes the approval's expiry; the lead's approval is then refused.
    const a = await store.approval(id);
    await store.expireApprovals(new Date(a!.expiresAt + 1));
    const late = await decide('lead', id);
    expect(late.isError).toBe(true);
    // The sweep releases its held item (expired: nothing sent, reservation returned).
    const [item] = await until('the expired item to be released', async () => {
      const items = await heldItems(id);
      return items[0]?.outcome === 'rejected' ? items : undefined;
    });
    expect(item!.reason).toMatch(/expired/);
    expect(posts()).toBe(0);
  });

  it('a decline sends nothing and returns the reservation', async () => {
    const before = (
      await store.readAdmissionFacts({
        maxCreditsPerCall: 1e9,
        maxCreditsPerDay: 1e9,
        dayStart: new Date(now - 86_400_000),
      })
    ).spentToday;
    const { env, id } = await held(BIG(4));
    const during = (
      await store.readAdmissionFacts({
        maxCreditsPerCall: 1e9,
        maxCreditsPerDay: 1e9,
        dayStart: new Date(now - 86_400_000),
      })
    ).spentToday;
    expect(during - before).toBeCloseTo((env.estimate as { credits: number }).credits);
    const r = await decide('lead', id, 'decline');
    expect(sc(r).state).toBe('declined');
    const [item] = await heldItems(id);
    expect(item!.outcome).toBe('rejected');
    expect(item!.reason).toMatch(/declined/);
    const after = (
      await store.readAdmissionFacts({
        maxCreditsPerCall: 1e9,
        maxCreditsPerDay: 1e9,
        dayStart: new Date(now - 86_400_000),
      })
    ).spentToday;
    expect(after).toBeCloseTo(before);
    expect(posts()).toBe(0);
  });

  it('a campaign of N held, approved once: N POSTs', async () => {
    // Three talking videos of 100 credits: the campaign's total (300) is what the rule judges.
    const r = await clients.alice.call('create_campaign', { items: [TALK(51), TALK(52), TALK(53)] });
    expect(sc(r).status, text(r)).toBe('approval_required');
    const id = idOf(sc(r).handle);
    expect(await heldItems(id)).toHaveLength(3);
    expect(posts()).toBe(0);
    expect(sc(await decide('lead', id)).state).toBe('approved');
    await until('both items sent', async () =>
      (await heldItems(id)).every((i) => i.outcome !== 'queued' && i.outcome !== 'pending') ? true : undefined,
    );
    expect(posts()).toBe(3);
  });

  it('a price that rose after the approval goes back for approval, sending nothing; approved again, it is sent', async () => {
    const { id } = await held(BIG(7));
    const pack = sim.data.packs.find((p) => p.value === 'gadgets')!;
    const was = pack.credits.video;
    pack.credits.video = '500 credits';
    try {
      now += 6 * 60_000; // past the catalog's cache: the price is read again
      expect(sc(await decide('lead', id)).state).toBe('approved');
      const [item] = await heldItems(id);
      expect(item!.outcome).toBe('queued');
      expect(item!.held?.reason).not.toBe(`approval:${id}`);
      const next = item!.held!.reason.slice('approval:'.length);
      const again = await store.approval(next);
      expect(again?.state).toBe('pending');
      expect(again?.quoteCredits).toBe(500);
      expect(posts()).toBe(0);
      expect(sc(await decide('lead', next)).state).toBe('approved');
      await until('the re-approved call to be sent', async () => {
        const [i] = await heldItems(id);
        return i && i.outcome !== 'queued' && i.outcome !== 'pending' ? i : undefined;
      });
      expect(posts()).toBe(1);
    } finally {
      pack.credits.video = was;
    }
  });

  it('a call whose rule nobody but the requester could approve is refused naming the rule: nothing written or sent', async () => {
    const before = (await store.list()).length;
    const r = await clients.alice.call('create_template_video', BILLABLE_EXAMPLES.create_template_video!.args(sim, 9));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('rule "templates by alice"');
    expect((await store.list()).length).toBe(before);
    expect(posts()).toBe(0);
  });

  it("a held call's reservation counts against the requester's day budget until it is declined", async () => {
    const first = await clients.bob.call('create_shoppable_video', BIG(81));
    expect(sc(first).status, text(first)).toBe('approval_required');
    const second = await clients.bob.call('create_shoppable_video', BIG(82));
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/500/);
    expect(posts()).toBe(0);
    expect(sc(await decide('lead', idOf(sc(first).handle), 'decline')).state).toBe('declined');
    const third = await clients.bob.call('create_shoppable_video', BIG(82));
    expect(sc(third).status, text(third)).toBe('approval_required');
    expect(posts()).toBe(0);
  });

  it('held items whose approval was never written (a stop in between) are released after the grace, unsent', async () => {
    const { id } = await held(BIG(91));
    const [item] = await heldItems(id);
    // As if the process had stopped before writing the approval: the item waits for one that does not exist.
    const orphan = `approval:${randomUUID()}`;
    expect(
      await store.claimItem(item!.id, { held: { since: item!.held!.since, reason: orphan } }, 'held'),
    ).toBeDefined();
    const sender = (later: number) =>
      approvalSender({
        config: {} as Config,
        jobs: store,
        log: createLogger('error', () => {}),
        now: () => Date.now() + later,
        ctx: {} as never,
        itemSpec: () => undefined,
        kick: () => {},
        holder: 'test',
      });
    await sender(0).recover();
    expect((await store.get(item!.id))?.outcome).toBe('queued');
    await sender(UNACKNOWLEDGED_GRACE_MS + 1_000).recover();
    const released = await store.get(item!.id);
    expect(released?.outcome).toBe('rejected');
    expect(released?.reason).toBe(RELEASED_UNCONFIRMED);
    expect(posts()).toBe(0);
  });

  it('the audit names the requester and the lead with the carrier', async () => {
    const rows = await store.approvalAudit({ requester: 'token:alice' });
    const approved = rows.find((r) => r.event === 'approve');
    expect(approved?.requester).toBe('token:alice');
    expect(approved?.approver).toBe('token:lead');
    expect(approved?.carrier).toBe('tool');
  });
});
