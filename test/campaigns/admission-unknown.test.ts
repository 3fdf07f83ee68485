/**
 * Issue 27 item 2: an admission whose outcome is unknown is answered as unknown, and nothing is ever sent that the
 * agent was told failed or unknown. On both stores:
 * - SQLite: the store commits, then its answer is "lost" (`CommitUnknownError`, what `tx` throws when COMMIT
 *   fails) and the store stays unreachable for the release;
 * - PostgreSQL behind the TCP fault proxy in `mute` (the COMMIT reaches the server and lands, every answer is
 *   dropped; new connections never finish their start-up), then `pass` again.
 * The agent gets `unknown` + the handle (never "try again"); the sweep (any process, after the store is back)
 * sends nothing of it and releases it after the grace period; get_job shows it released. A failure before COMMIT
 * says "not admitted, nothing sent", never "Internal error".
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { PaidStep } from '../../src/kill-steps.js';
import { UNACKNOWLEDGED_GRACE_MS } from '../../src/paid/outbox.js';
import { CommitUnknownError } from '../../src/store/commit-unknown.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';
import { ADMIN_URL, createTestSchema, dropTestDatabases } from '../store/pg-helper.js';
import { sweepOnce } from './sweep-once.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
/** Short bounds so a muted database fails a statement in ~1-3 s, not the 15 s default. */
const TIMEOUTS = { connectMs: 400, statementMs: 600, lockMs: 800, idleInTransactionMs: 600 };
const textOf = (r: { content?: unknown }) => JSON.stringify(r.content);

/** How a test loses the store: `lose` the next admission's answer, `fail` the next one before COMMIT. */
interface StoreFault {
  lose(): void;
  fail(): void;
  back(): void;
}

type Kind = 'sqlite' | 'postgres';
const proxies: FaultProxy[] = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  await dropTestDatabases();
});

/** A harness on `kind` whose store the test can fault; `onPaidStep` as the harness takes it. */
async function harness(kind: Kind, onPaidStep?: (s: PaidStep) => void): Promise<StoreFault> {
  if (kind === 'sqlite') {
    const state = { lose: false, fail: false, down: false };
    h = await startHarness({
      ...(onPaidStep ? { onPaidStep } : {}),
      store: async (dir) => {
        const real = await openSqliteStore(dir);
        return new Proxy(real, {
          get(target, key) {
            const v = (target as unknown as Record<string | symbol, unknown>)[key];
            if (typeof v !== 'function') return v;
            return async (...args: unknown[]) => {
              if (key !== 'close' && state.down) throw new Error('connect ECONNREFUSED (the store is down)');
              if (key === 'admitBundle' && state.fail) {
                state.fail = false;
                throw new Error('Connection terminated unexpectedly (before COMMIT)');
              }
              const out = await (v as (...a: unknown[]) => unknown).apply(target, args);
              if (key === 'admitBundle' && state.lose) {
                // Committed; the answer never arrives, and the store stays away for the release.
                state.lose = false;
                state.down = true;
                throw new CommitUnknownError({ cause: new Error('Connection terminated unexpectedly') });
              }
              return out;
            };
          },
        }) as Store;
      },
    });
    return {
      lose: () => {
        state.lose = true;
      },
      fail: () => {
        state.fail = true;
      },
      back: () => {
        state.down = false;
      },
    };
  }
  const url = await createTestSchema();
  const admin = new URL(ADMIN_URL);
  const proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  proxies.push(proxy);
  const armed = { lose: false, fail: false };
  h = await startHarness({
    onPaidStep: (s) => {
      if (s === 'before_admit' && armed.fail) {
        armed.fail = false;
        proxy.set('refuse');
      }
      onPaidStep?.(s);
    },
    store: () =>
      openPostgresStore(proxy.through(url), {
        timeouts: TIMEOUTS,
        // Inside the admission, after its inserts, before COMMIT: the COMMIT lands, its answer is dropped.
        onAdmitWrite: () => {
          if (!armed.lose) return;
          armed.lose = false;
          proxy.set('mute');
        },
      }),
  });
  return {
    lose: () => {
      armed.lose = true;
    },
    fail: () => {
      armed.fail = true;
    },
    back: () => proxy.set('pass'),
  };
}

/** One sweep of a serving process's campaign sender with `over` its config. */
async function sweep(over: Partial<Config> = {}, aheadMs = 0, lines: string[] = []): Promise<void> {
  await sweepOnce(h!, { over, aheadMs, lines, times: 1 });
}

const campaign = (tag: string) => ({
  items: [
    { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: `${tag} one.` } },
    { tool: 'create_talking_video', arguments: { avatar_id: 'av_marcus', voice_script: `${tag} two.` } },
  ],
});

async function itemsOf(handle: string) {
  return h!.jobs.bundleItems(handle.replace(/^campaign:/, ''));
}

describe.each<Kind>(['sqlite', 'postgres'])('%s', (kind) => {
  it('a campaign whose COMMIT answer is lost: "unknown, follow campaign:<id>"; the sweep sends nothing of it and releases it', async () => {
    const fault = await harness(kind);
    fault.lose();
    const r = await h!.call('create_campaign', campaign(`Lost ${kind}`));
    const env = structured(r);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(env.status).toBe('unknown');
    expect(env.handle).toMatch(/^campaign:[0-9a-f-]{36}$/);
    expect(String(env.next_step)).toContain(`Follow ${env.handle} with get_job`);
    expect(textOf(r)).not.toMatch(/try again/i);
    expect(h!.sim.log.count(POSTS)).toBe(0);

    fault.back();
    // A sweep now (the store is back, within the grace period) and one past it: nothing is sent.
    await sweep();
    expect(h!.sim.log.count(POSTS)).toBe(0);
    await sweep({}, UNACKNOWLEDGED_GRACE_MS + 1_000);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    const items = await itemsOf(String(env.handle));
    // The COMMIT landed (PostgreSQL's mute forwards it; the SQLite store ran it): both items are on record.
    expect(items).toHaveLength(2);
    expect(items.filter((i) => i.outcome !== 'rejected')).toEqual([]);
    {
      const view = structured(await h!.call('get_job', { handle: env.handle })) as {
        details: { campaign: { items: { status: string; reason?: string }[] } };
      };
      expect(view.details.campaign.items.map((i) => i.status)).toEqual(['released', 'released']);
      expect(view.details.campaign.items[0]!.reason).toMatch(/nothing was sent/);
    }
    // The same campaign again is admitted and sent once: the released one blocks nothing.
    const again = await h!.call('create_campaign', campaign(`Lost ${kind}`));
    expect(structured(again).status, textOf(again)).toBe('submitted');
    for (let i = 0; i < 400 && h!.sim.log.count(POSTS) < 2; i++) await new Promise((res) => setTimeout(res, 25));
    expect(h!.sim.log.count(POSTS)).toBe(2);
  }, 60_000);

  it('a single call whose COMMIT answer is lost: "may have been admitted", its handle, released once the store is back', async () => {
    const fault = await harness(kind);
    fault.lose();
    const args = { avatar_id: 'av_ava', voice_script: `Single lost ${kind}.` };
    const r = await h!.call('create_talking_video', args);
    const env = structured(r);
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(env.status).toBe('unknown');
    expect(env.handle).toMatch(/^submission:/);
    expect(String(env.reason)).toMatch(/may have been admitted; nothing was sent/);
    expect(textOf(r)).not.toMatch(/try again/i);
    expect(h!.sim.log.count(POSTS)).toBe(0);

    fault.back();
    // The admitting process retries the release in the background (every 5 s) until the store answers.
    const id = String(env.handle).replace(/^submission:/, '');
    let rec = await h!.jobs.get(id).catch(() => undefined);
    for (let i = 0; i < 300 && rec && rec.outcome !== 'rejected'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      rec = await h!.jobs.get(id).catch(() => undefined);
    }
    if (rec) expect(rec).toMatchObject({ outcome: 'rejected', reason: expect.stringMatching(/^released:/) });
    expect(h!.sim.log.count(POSTS)).toBe(0);
    const again = await h!.call('create_talking_video', args);
    expect(structured(again).status, textOf(again)).toBe('submitted');
    expect(h!.sim.log.count(POSTS)).toBe(1);
  }, 60_000);

  it('an admission that failed before its COMMIT says "not admitted, nothing sent" (single call and campaign)', async () => {
    const fault = await harness(kind);
    fault.fail();
    const single = await h!.call('create_talking_video', { avatar_id: 'av_ava', voice_script: `Failed ${kind}.` });
    expect(single.isError).toBe(true);
    expect(textOf(single)).toMatch(/Not admitted: .*Nothing was sent and nothing charged/);
    expect(textOf(single)).not.toMatch(/Internal error/);
    fault.back();
    fault.fail();
    const many = await h!.call('create_campaign', campaign(`Failed ${kind}`));
    expect(many.isError).toBe(true);
    expect(textOf(many)).toMatch(/Not admitted: .*campaign.*Nothing was sent and nothing charged/);
    expect(textOf(many)).not.toMatch(/Internal error/);
    fault.back();
    await sweep({}, UNACKNOWLEDGED_GRACE_MS + 1_000);
    expect(h!.sim.log.count(POSTS)).toBe(0);
  }, 60_000);
});
