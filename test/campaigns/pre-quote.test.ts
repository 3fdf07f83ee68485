/**
 * Issue 27 (item 6, part): a campaign its admission would refuse is refused before its quote, not after the
 * person agreed to it. An item identical to an item of a running campaign (or to a running single job) is refused
 * as a duplicate naming that item and the running job's handle: no confirmation is asked, nothing is sent.
 * `allow_duplicate: true` (several takes on purpose) is still quoted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const take = (avatar: string) => ({
  tool: 'create_talking_video',
  arguments: { avatar_id: avatar, voice_script: 'A running take.' },
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** n POSTs made and their answers settled in the store (a POST counted before its answer is read leaves the item
 * `pending`, whose handle is not yet the job's: seen once under load). */
async function sent(n: number) {
  const settled = async () =>
    (await h!.jobs.list({})).filter((r) => r.campaign && r.outcome !== 'pending' && r.outcome !== 'queued').length;
  for (let i = 0; i < 800 && (h!.sim.log.count(POSTS) < n || (await settled()) < n); i++)
    await new Promise((r) => setTimeout(r, 25));
  expect(h!.sim.log.count(POSTS)).toBe(n);
  expect(await settled()).toBe(n);
}

describe('a campaign sharing an item with a running one', () => {
  it('is refused before its quote, naming the item and the running job', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    // Long jobs: the first campaign stays running while the second is asked for.
    h.sim.jobs.scriptNext({ durationMs: 600_000 }, 2);
    const first = await h.call('create_campaign', { items: [take('av_ava'), take('av_marcus')] });
    const token = structured(first).confirmation_token;
    expect(token, text(first)).toBeTruthy();
    const admitted = await h.call('create_campaign', {
      items: [take('av_ava'), take('av_marcus')],
      confirmation_token: token,
    });
    expect(structured(admitted).status, text(admitted)).toBe('submitted');
    await sent(2);
    const running = (await h.jobs.list({})).find((r) => r.campaign?.index === 1)!;

    const second = await h.call('create_campaign', { items: [take('av_lucia'), take('av_marcus')] });
    expect(second.isError, text(second)).toBe(true);
    expect(structured(second).confirmation_token).toBeUndefined();
    expect(text(second)).toMatch(/items\[1\].*duplicate/);
    expect(text(second)).toContain(running.handle);
    expect(h.sim.log.count(POSTS)).toBe(2);

    // Several takes on purpose: quoted as before.
    const onPurpose = await h.call('create_campaign', {
      items: [take('av_lucia'), take('av_marcus')],
      allow_duplicate: true,
    });
    expect(structured(onPurpose).status, text(onPurpose)).toBe('confirmation_required');
  }, 60_000);
});
