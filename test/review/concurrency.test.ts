/**
 * Review: parallel billable calls (hosts issue tool calls in parallel). The duplicate guard and the per-day
 * ceiling read the ledger, then the POST's intent is written later (after consent, which may be a form the
 * user answers seconds later). Two calls racing through that window must not both be sent.
 */

import type { ElicitResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_marcus', voice_script: 'Parallel calls, take one.' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const delayedAccept = (ms: number) => async (): Promise<ElicitResult> => {
  await new Promise((r) => setTimeout(r, ms));
  return { action: 'accept', content: { confirm: true } };
};

describe('duplicate guard under parallel calls', () => {
  it('two identical calls at once (policy never) send one POST; the other is refused as a duplicate', async () => {
    h = await startHarness();
    const [a, b] = await Promise.all([h.call(TOOL, ARGS), h.call(TOOL, ARGS)]);
    const outcomes = [a, b].map((r) => (r.isError ? 'refused' : structured(r).status)).sort();
    expect(outcomes).toEqual(['refused', 'submitted']);
    expect(text(a.isError ? a : b)).toMatch(/duplicate/);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  it('two identical calls both confirmed through a form send one POST', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } }, onElicit: delayedAccept(50) });
    const [a, b] = await Promise.all([h.call(TOOL, ARGS), h.call(TOOL, ARGS)]);
    expect([a, b].filter((r) => !r.isError && structured(r).status === 'submitted')).toHaveLength(1);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });
});

describe('per-day ceiling under parallel calls', () => {
  const ceiling = { maxCreditsPerCall: 100, maxCreditsPerDay: 100 };

  it('two different 100-credit calls at once under a 100-credit day send one POST (policy never)', async () => {
    h = await startHarness({ config: ceiling });
    const [a, b] = await Promise.all([
      h.call(TOOL, ARGS),
      h.call(TOOL, { ...ARGS, voice_script: 'Parallel calls, take two.' }),
    ]);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const refused = [a, b].find((r) => r.isError);
    expect(refused && text(refused)).toMatch(/per-day ceiling/);
  });

  it('the day is re-checked after a slow consent form: spend made meanwhile counts', async () => {
    h = await startHarness({ config: { ...ceiling, confirm: { mode: 'always' } }, onElicit: delayedAccept(50) });
    await Promise.all([h.call(TOOL, ARGS), h.call(TOOL, { ...ARGS, voice_script: 'Parallel calls, take two.' })]);
    expect(h.sim.log.count(POSTS)).toBe(1);
    expect(await h.jobs.spendSince(new Date(0))).toBe(100);
  });
});
