/**
 * Campaign progress in items (issue 29 item 2): wait_for_jobs on a campaign sends progress "k of N done" with each
 * item that finishes (1 of 3, 2 of 3, 3 of 3), never "0/1 then 1/1"; the task status and change notifications say
 * the same (test/protocol/campaign-tasks.test.ts, test/http/listen-unread.test.ts).
 */
import type { Progress } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Step by step.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

let h: Harness | undefined;
afterEach(async () => {
  h?.sim.jobs.clearScripts();
  await h?.close();
  h = undefined;
});

describe('campaign progress', () => {
  it('wait_for_jobs on a campaign of 3: progress 1 of 3, 2 of 3, 3 of 3 as items finish', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' }, maxCreditsPerDay: 10_000 } });
    h.sim.jobs.scriptNext({ durationMs: 600_000 }, 3);
    const handle = structured(await h.call('create_campaign', THREE)).handle as string;
    await vi.waitFor(() => expect(h!.sim.jobs.all()).toHaveLength(3), { timeout: 20_000, interval: 20 });
    const heard: Progress[] = [];
    const waiting = h.call(
      'wait_for_jobs',
      { handles: [handle], max_wait_s: 50 },
      { onprogress: (p) => heard.push(p), timeout: 90_000 },
    );
    // One item at a time, each only once the previous step was heard: no timing assumed.
    for (const [k, job] of h.sim.jobs.all().entries()) {
      job.finishAt = Date.now();
      await vi.waitFor(() => expect(heard.map((p) => p.message)).toContain(`${k + 1} of 3 done`), {
        timeout: 20_000,
        interval: 20,
      });
    }
    const w = structured(await waiting);
    expect(w.done).toBe(true);
    expect(heard.every((p) => p.total === 3)).toBe(true);
    expect(heard.map((p) => p.progress)).toEqual(expect.arrayContaining([1, 2, 3]));
  });
});
