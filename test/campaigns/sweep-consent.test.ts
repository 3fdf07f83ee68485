/**
 * Issue 27 items 2 and 3, the sweep's side: queued campaign items are sent only by a process that may send them.
 * - A process that stopped after its admission's COMMIT was answered but before it marked the items acknowledged
 *   (the `campaign_admitted` step; the agent got no answer) leaves items no sweep sends: released after the grace.
 * - Acknowledged items carry who consented them to what (a keyed fingerprint of the API key, the base URL): a
 *   sweeper with another key or base URL, or read-only, sends none of them and says so in its log once per
 *   campaign, without the key; the process they were consented for sends them.
 * The stopped process is simulated in process: the step hook throws, so the call ends there and its own sender
 * never starts (what a kill -9 at that step leaves in the store).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { PaidStep } from '../../src/kill-steps.js';
import { UNACKNOWLEDGED_GRACE_MS } from '../../src/paid/outbox.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { sweepOnce } from './sweep-once.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const OTHER_KEY = 'sk-another-account-0123456789abcdef';
const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Sweep consent.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A harness whose paid call stops dead at `at` (its own sender never runs). */
async function stoppingAt(at: PaidStep): Promise<Harness> {
  h = await startHarness({
    onPaidStep: (step) => {
      if (step === at) throw new Error(`stopped at ${at} (test)`);
    },
  });
  return h;
}

/** One sweep (two in this file: a refusal is logged once per campaign) of a serving process's sender. */
async function sweep(over: Partial<Config> = {}, aheadMs = 0, lines: string[] = []): Promise<void> {
  await sweepOnce(h!, { over, aheadMs, lines, times: 2 });
}

async function queued() {
  return (await h!.jobs.list({})).filter((r) => r.outcome === 'queued');
}

describe('the campaign sweep sends only what this process may send', () => {
  it('stopped between the COMMIT answer and the acknowledgement: no sweep sends it; released after the grace', async () => {
    await stoppingAt('campaign_admitted');
    const r = await h!.call('create_campaign', THREE);
    expect(r.isError).toBe(true);
    expect(await queued()).toHaveLength(3);
    await sweep();
    expect(h!.sim.log.count(POSTS)).toBe(0);
    expect(await queued()).toHaveLength(3);
    await sweep({}, UNACKNOWLEDGED_GRACE_MS + 1_000);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    const items = await h!.jobs.list({});
    expect(items.map((i) => i.outcome)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(items.every((i) => i.reason?.startsWith('released:'))).toBe(true);
  }, 60_000);

  it('another API key, another base URL, read-only: 0 POSTs, one log line per campaign without the key; the consented process sends them', async () => {
    await stoppingAt('after_admit');
    const r = await h!.call('create_campaign', THREE);
    expect(r.isError).toBe(true);
    const items = await queued();
    expect(items).toHaveLength(3);
    // The record names the account by a keyed fingerprint only.
    expect(JSON.stringify(items)).not.toContain(h!.sim.apiKey);
    const id = items[0]!.campaign!.id;

    const other: string[] = [];
    await sweep({ apiKey: OTHER_KEY }, 0, other);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    const said = other.filter((l) => l.includes('campaign items left unsent here'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(id);
    expect(said[0]).toMatch(/another account/);
    expect(other.join('\n')).not.toContain(OTHER_KEY);

    const elsewhere: string[] = [];
    await sweep({ baseUrl: `${h!.sim.baseUrl}/elsewhere` }, 0, elsewhere);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    expect(elsewhere.filter((l) => /another platform base URL/.test(l))).toHaveLength(1);

    const readOnly: string[] = [];
    await sweep({ readOnly: true }, 0, readOnly);
    expect(h!.sim.log.count(POSTS)).toBe(0);
    expect(readOnly.filter((l) => /read-only/.test(l))).toHaveLength(1);
    expect(await queued()).toHaveLength(3);

    // Acknowledged by the admitting call (so not released), and left queued for the right process.
    expect((await queued()).every((i) => i.acknowledgedAt !== undefined)).toBe(true);
    // The process they were consented for: every item, once.
    await sweep();
    expect(h!.sim.log.count(POSTS)).toBe(3);
    expect(await queued()).toHaveLength(0);
  }, 60_000);
});
