/**
 * Issue 18 item 3: reading a job this store did not admit (`get_job {kind, id}`) never adds to today's spend.
 * Before the fix, three free reads of jobs started elsewhere (100 credits each, reported by the status
 * endpoint) used up a 300-credit day, and the next paid call was refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { maxCreditsPerDay: 300 } });
});
afterAll(() => h.close());

describe('jobs followed by id', () => {
  it('three reads of charged jobs started elsewhere leave the whole day ceiling to paid calls', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Gesture jobs: their status reads report `credits_charged` (spec "Gesture job"), 100 in the simulator.
      const r = await h.platform.gestures.generate({
        prompt: `waves, take ${i}`,
        image_url: 'https://cdn.example.com/p.png',
      });
      ids.push(r.data.id);
    }
    await new Promise((r) => setTimeout(r, 200));
    for (const id of ids) {
      const s = structured(await h.call('get_job', { kind: 'gesture', id }));
      expect(s.status).toBe('completed');
      // The platform says it charged them: the charge is shown, just not put on our day.
      const rec = await h.jobs.get(String(s.handle));
      // The platform's charge is kept on the record (the account did pay it) but never put on our day.
      expect(rec?.creditsCharged).toBe(100);
      expect(rec?.tool).toBe('external');
    }
    const before = h.sim.log.count(POSTS);
    const paid = structured(
      await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Made here, within the day.' }),
    );
    expect(paid.status).toMatch(/submitted|processing|completed/);
    expect(h.sim.log.count(POSTS)).toBe(before + 1);
    expect(await h.jobs.spendSince(new Date(Date.now() - 3_600_000))).toBe(100);
  });
});
