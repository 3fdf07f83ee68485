/**
 * Issue 28 item 7: an approval-waiting request is a held bundle item. It is admitted and reserved like any queued
 * item, but no sweep sends it while it is held; once unheld (one compare-and-set, `claimItem(id, { held:
 * undefined }, 'held')`) the next sweep sends it through the same send as every other item, exactly once.
 * (A bundle whose items are all held takes no lease: the sweep that finds one unheld sends it at once.)
 * The admitting process is stopped after its admission (its own sender never runs), as a kill -9 there would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { sweepOnce } from './sweep-once.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Held item.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a held bundle item', () => {
  it('is not sent by a sweep while held; unheld, the next sweep sends it once', async () => {
    h = await startHarness({
      onPaidStep: (step) => {
        if (step === 'after_admit') throw new Error('stopped after the admission (test)');
      },
    });
    expect((await h.call('create_campaign', THREE)).isError).toBe(true);
    const items = await h.jobs.list({});
    expect(items.map((i) => i.outcome)).toEqual(['queued', 'queued', 'queued']);
    const hold = { since: new Date().toISOString(), reason: 'waiting for an approval' };
    for (const item of items) expect((await h.jobs.claimItem(item.id, { held: hold }))?.held).toEqual(hold);
    const target = items.find((i) => i.campaign?.index === 1)!;

    // One serving process: a sweep while all are held, the unhold of one, another sweep.
    const posts: number[] = [];
    await sweepOnce(h, {
      times: 2,
      after: async (i) => {
        posts.push(h!.sim.log.count(POSTS));
        if (i === 0) expect(await h!.jobs.claimItem(target.id, { held: undefined }, 'held')).toBeDefined();
      },
    });
    expect(posts).toEqual([0, 1]);
    const after = await h.jobs.list({});
    expect(after.find((i) => i.id === target.id)?.outcome).toBe('submitted');
    // The others still wait, reserved and unsent.
    expect(after.filter((i) => i.id !== target.id).map((i) => [i.outcome, Boolean(i.held)])).toEqual([
      ['queued', true],
      ['queued', true],
    ]);
  }, 60_000);
});
