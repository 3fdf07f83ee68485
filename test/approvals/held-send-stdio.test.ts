/**
 * Over stdio (issue 28 item 5): there is no signed-in requester and no second proven person, so a call the
 * approval policy would hold is refused, saying why; nothing is written or sent. A call no rule matches is
 * unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApprovalPolicy } from '../../src/approvals/load-policy.js';
import { STDIO_NEEDS_APPROVAL } from '../../src/paid/wording.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const posts = () => h.sim.log.entries().filter((e) => e.method === 'POST').length;

beforeAll(async () => {
  const approvals = await parseApprovalPolicy(
    JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }),
    'json',
    'test policy',
  );
  h = await startHarness({ config: { approvals, confirm: { mode: 'never' } } });
}, 60_000);
afterAll(() => h?.close());

describe('a call the policy would hold, over stdio', () => {
  it('is refused naming why; nothing is written or sent', async () => {
    const r = await h.call('create_shoppable_video', {
      category: 'gadgets',
      format: 'unboxing',
      image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
      context: 'desk setup over stdio',
    });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain(STDIO_NEEDS_APPROVAL.slice(0, 60));
    expect(posts()).toBe(0);
    expect(await h.jobs.list()).toEqual([]);
  });

  it('a call under the rule goes through as before', async () => {
    const r = await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Small, over stdio.' });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(posts()).toBe(1);
  });
});
