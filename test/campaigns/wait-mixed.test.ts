/**
 * wait_for_jobs with job and campaign handles together (issue 21 item 4): between two looks it sleeps until the
 * shared poller reads something new (or, for an item not yet sent, the poller's pace), never on a fixed 1-second
 * timer. Counted as store reads of the campaign's items during a wait in which nothing changes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const TWO = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Hot at five pm.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus'] },
};
const SINGLE = { avatar_id: 'av_kenji', voice_script: 'One more.' };

let h: Harness | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  await sim?.close();
  h = undefined;
  sim = undefined;
});

/** A plain job and a 2-item campaign, every item sent (none queued or being sent). */
async function startBoth(jobMs: number): Promise<{ job: string; campaign: string }> {
  sim = await startSimulator({ timing: { jobMs, slowOpMs: 10 } });
  h = await startHarness({
    sim,
    pollIntervalMs: 300,
    config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 },
  });
  const jq = structured(await h.call('create_talking_video', SINGLE));
  const job = structured(
    await h.call('create_talking_video', { ...SINGLE, confirmation_token: jq.confirmation_token }),
  );
  const q = structured(await h.call('create_campaign', TWO));
  const c = structured(await h.call('create_campaign', { ...TWO, confirmation_token: q.confirmation_token }));
  const id = (c.handle as string).slice('campaign:'.length);
  for (let i = 0; i < 500; i++) {
    const items = await h.jobs.bundleItems(id);
    if (items.length === 2 && items.every((r) => r.outcome === 'submitted')) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { job: job.handle as string, campaign: c.handle as string };
}

describe('wait_for_jobs: job and campaign handles together', () => {
  it('a 6 s wait on jobs that do not change looks at the campaign a few times, not once a second', async () => {
    const { job, campaign } = await startBoth(60_000);
    const looks = vi.spyOn(h!.jobs, 'bundleItems');
    const r = structured(await h!.call('wait_for_jobs', { handles: [job, campaign], max_wait_s: 6 }));
    expect(r.done).toBe(false);
    expect(r.pending).toEqual([job, campaign]);
    // One look = readCampaign (2 store reads while items run) + openWork (1). Now: the first look, nothing changes,
    // the deadline's look = 5 reads. The old 1-second loop made ~6 looks = ~12 reads (8 in a 4 s wait, measured).
    expect(looks.mock.calls.length).toBeLessThanOrEqual(6);
    expect(looks.mock.calls.length).toBeGreaterThan(0);
  });

  it('wakes when the jobs finish: every handle final, done', async () => {
    const { job, campaign } = await startBoth(1_500);
    const r = structured(await h!.call('wait_for_jobs', { handles: [job, campaign], max_wait_s: 30 }));
    expect(r.done).toBe(true);
    expect(r.pending).toEqual([]);
    const jobs = r.jobs as { status: string; details?: { campaign?: { progress: string } } }[];
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed']);
    expect(jobs[1]!.details!.campaign!.progress).toBe('2 of 2 done');
  });
});
