/**
 * A 2026-07-28 client that declared elicitation in URL mode only (`elicitation: { url: {} }`, no form) is
 * routed to the `input_required` FORM carrier by formCarrierFor (it checks only `.elicitation` truthiness);
 * the SDK then refuses our own InputRequiredResult with -32021 because `elicitation.form` is missing.
 * Expected: a confirmation_required answer with a token (the documented fallback when no form can be shown).
 */
import { afterEach, expect, it } from 'vitest';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ARGS = { avatar_id: 'av_ava', voice_script: 'Hello url-only.', voice_id: 'voice_en_rachel' };

it('2026 client with URL-only elicitation still gets a way to confirm (token), not a protocol error', async () => {
  h = await startHarness({
    era: 'modern',
    config: { confirm: { mode: 'always' } },
    clientCapabilities: { elicitation: { url: {} } } as never,
  });
  let err: unknown;
  let r: Awaited<ReturnType<Harness['call']>> | undefined;
  try {
    r = await h.call('create_talking_video', ARGS);
  } catch (e) {
    err = e;
  }
  expect(err, String(err)).toBeUndefined();
  expect(structured(r!).status).toBe('confirmation_required');
  expect(typeof structured(r!).confirmation_token).toBe('string');
});
