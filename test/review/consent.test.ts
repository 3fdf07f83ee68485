/**
 * Review of consent edge cases not covered in test/core/consent.test.ts and test/unit/cost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { estimate } from '../../src/jobs/envelope.js';
import type { JobStore } from '../../src/jobs/store.js';
import { guardCall } from '../../src/paid/guard.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_marcus', voice_script: 'Consent review, take one.' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('allow_duplicate needs its own consent', () => {
  it('a token quoted for a first job cannot start a second identical one with allow_duplicate', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    // Two quotes for the same arguments before anything was sent: both tokens are valid.
    const t1 = structured(await h.call(TOOL, ARGS)).confirmation_token;
    const t2 = structured(await h.call(TOOL, ARGS)).confirmation_token;
    expect(structured(await h.call(TOOL, { ...ARGS, confirmation_token: t1 })).status).toBe('submitted');

    // The agent adds allow_duplicate on its own and spends the spare token: the user agreed to one job.
    const r = await h.call(TOOL, { ...ARGS, confirmation_token: t2, allow_duplicate: true });
    expect(h.sim.log.count(POSTS)).toBe(1);
    expect(structured(r).status).toBe('confirmation_required');
    expect(String(structured(r).reason)).toMatch(/allow_duplicate/);

    // A token quoted with allow_duplicate: true does start the second job.
    const dupToken = structured(r).confirmation_token;
    const dup = await h.call(TOOL, { ...ARGS, confirmation_token: dupToken, allow_duplicate: true });
    expect(structured(dup).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(2);
  });

  it('a token quoted with allow_duplicate cannot be redeemed without it (closed either way)', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const t = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true })).confirmation_token;
    const r = await h.call(TOOL, { ...ARGS, confirmation_token: t });
    expect(structured(r).status).toBe('confirmation_required');
    expect(h.sim.log.count(POSTS)).toBe(0);
  });

  it('a token of one tool is refused by another (closed)', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const t = structured(await h.call(TOOL, ARGS)).confirmation_token;
    const r = await h.call('animate_gesture', {
      prompt: 'waves',
      image_url: 'https://cdn.example.com/p.png',
      confirmation_token: t,
    });
    expect(structured(r).status).toBe('confirmation_required');
    expect(String(structured(r).reason)).toMatch(/issued for create_talking_video/);
    expect(h.sim.log.count({ method: 'POST' })).toBe(0);
  });

  it('elicitation accepted with confirm: "true" (a string) is not consent (closed)', async () => {
    h = await startHarness({
      config: { confirm: { mode: 'always' } },
      onElicit: async () => ({ action: 'accept', content: { confirm: 'true' as unknown as boolean } }),
    });
    const r = await h.call(TOOL, ARGS);
    expect(r.isError ? text(r) : structured(r).status).not.toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(0);
  });
});

describe('an estimate that is not a price is refused before any consent path', () => {
  const config = { maxCreditsPerCall: 500, maxCreditsPerDay: 1000, confirm: { mode: 'never' } } as Config;
  const jobs = {
    readAdmissionFacts: async () => ({ now: new Date(0), spentToday: 0 }),
  } as unknown as JobStore;
  it.each([Number.NaN, Number.POSITIVE_INFINITY, -100])('%s credits', async (credits) => {
    const d = await guardCall(
      { config, jobs, now: () => 0 },
      {
        tool: 't',
        kind: 'actor_video',
        request: { route: '/t', body: {} },
        estimate: estimate(credits, 'broken'),
        summary: 's',
        owner: undefined,
        token: undefined,
        allowDuplicate: false,
        elicit: undefined,
      },
    );
    expect(d.kind).toBe('refuse');
  });
});
