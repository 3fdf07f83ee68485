/**
 * Issue 29: the job follower reads open jobs with nobody calling get_job, through the shared poller, so their
 * completion is recorded by the store (and the events it writes follow). Real server, simulator and SQLite store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFollower } from '../../src/jobs/follower.js';
import { createPoller } from '../../src/jobs/poller.js';
import { silentLogger } from '../../src/log.js';
import { billableExample } from '../helpers/examples.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never met');
}

describe('createFollower', () => {
  it('records a job completed that nobody reads; unfollowed, it reads nothing', async () => {
    h = await startHarness();
    const harness = h;
    const r = await harness.call('create_talking_video', billableExample('create_talking_video').args(harness.sim, 1));
    const handle = structured(r).handle as string;
    expect(structured(r).status).not.toBe('completed');
    const poller = createPoller({
      client: harness.platform,
      jobs: harness.jobs,
      log: silentLogger,
      intervalMs: { min: 20, max: 20 },
    });
    const follower = createFollower({ store: harness.jobs, poller, log: silentLogger });
    try {
      // Nobody follows yet: the job stays as submitted, however long we wait for the scan.
      const reads = () => harness.sim.log.count({ method: 'GET' });
      const before = reads();
      await new Promise((res) => setTimeout(res, 100));
      expect((await harness.jobs.get(handle))?.status).not.toBe('completed');
      expect(reads()).toBe(before);

      const unfollow = follower.followAll();
      const done = await until(async () => {
        const rec = await harness.jobs.get(handle);
        return rec?.status === 'completed' ? rec : undefined;
      });
      expect(done.outputs.length).toBeGreaterThan(0);
      unfollow();
      // Terminal: the follower reads it no more.
      const after = reads();
      await new Promise((res) => setTimeout(res, 100));
      expect(reads()).toBe(after);
    } finally {
      follower.close();
      poller.close();
    }
  });

  it('follow(owner) follows that owner only', async () => {
    h = await startHarness({ owner: 'token:alice' });
    const harness = h;
    const r = await harness.call('create_talking_video', billableExample('create_talking_video').args(harness.sim, 2));
    const handle = structured(r).handle as string;
    const poller = createPoller({
      client: harness.platform,
      jobs: harness.jobs,
      log: silentLogger,
      intervalMs: { min: 20, max: 20 },
    });
    const follower = createFollower({ store: harness.jobs, poller, log: silentLogger, scanMs: 20 });
    try {
      const off = follower.follow('token:bob');
      await new Promise((res) => setTimeout(res, 100));
      expect((await harness.jobs.get(handle))?.status).not.toBe('completed');
      off();
      follower.follow('token:alice');
      await until(async () => ((await harness.jobs.get(handle))?.status === 'completed' ? true : undefined));
    } finally {
      follower.close();
      poller.close();
    }
  });
});
