/**
 * Invariant 1 with invariant 2 (issue 9, item 6): `allow_duplicate: true` past an earlier identical submission
 * whose outcome is unknown may charge the user twice for one job, so it is never auto-approved
 * (GENPLAT_CONFIRM=never / above:N), and every consent text names the earlier request id and says a job may
 * already exist and be charged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmPolicy } from '../../src/config.js';
import type { FaultSpec } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_marcus', voice_script: 'Resend after an unknown outcome.' };
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Sends ARGS once through a fault that leaves the outcome unknown; returns the request id the sim logged. */
async function unknownSubmission(harness: Harness, kind: FaultSpec['kind'], token?: unknown): Promise<string> {
  harness.sim.faults.add({ ...POSTS, kind });
  const r = structured(await harness.call(TOOL, { ...ARGS, ...(token ? { confirmation_token: token } : {}) }));
  expect(r.status).toBe('unknown');
  expect(harness.sim.log.count(POSTS)).toBe(1);
  return harness.sim.log.entries().find((e) => e.method === 'POST')!.requestId;
}

const policies: [string, ConfirmPolicy][] = [
  ['never', { mode: 'never' }],
  ['above:1000', { mode: 'above', credits: 1000 }],
];

describe.each(policies)('GENPLAT_CONFIRM=%s', (_name, confirm) => {
  it.each(['server_error_after_accept', 'reset_after_accept'] as const)(
    'after %s, allow_duplicate asks explicitly, naming the earlier request id',
    async (kind) => {
      h = await startHarness({ config: { confirm } });
      const requestId = await unknownSubmission(h, kind);

      const quote = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true }));
      expect(quote.status).toBe('confirmation_required');
      expect(h.sim.log.count(POSTS)).toBe(1);
      for (const words of [String(quote.next_step), String(quote.reason)]) {
        expect(words).toContain(`request id ${requestId}`);
        expect(words).toMatch(/may already exist on the platform and be charged/);
      }

      // The token quoted with that warning is explicit consent: the second job goes out, once.
      const sent = await h.call(TOOL, { ...ARGS, allow_duplicate: true, confirmation_token: quote.confirmation_token });
      expect(structured(sent).status, text(sent)).toBe('submitted');
      expect(h.sim.log.count(POSTS)).toBe(2);
    },
  );
});

describe('consent paths', () => {
  it('the elicitation form names the earlier request id, even under GENPLAT_CONFIRM=never', async () => {
    const asked: string[] = [];
    h = await startHarness({
      config: { confirm: { mode: 'never' } },
      onElicit: async (req) => {
        asked.push(req.params.message);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const requestId = await unknownSubmission(h, 'server_error_after_accept');
    const r = await h.call(TOOL, { ...ARGS, allow_duplicate: true });
    expect(structured(r).status).toBe('submitted');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`request id ${requestId}`);
    expect(asked[0]).toMatch(/may already exist on the platform and be charged/);
    expect(h.sim.log.count(POSTS)).toBe(2);
  });

  it('a token quoted with allow_duplicate before the earlier outcome became unknown cannot resend it', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' } } });
    const first = structured(await h.call(TOOL, ARGS)).confirmation_token;
    // Quoted while nothing identical was on record: its consent text carried no warning.
    const spare = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true })).confirmation_token;
    const requestId = await unknownSubmission(h, 'server_error_after_accept', first);

    const r = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true, confirmation_token: spare }));
    expect(r.status).toBe('confirmation_required');
    expect(String(r.reason)).toMatch(/unknown outcome/);
    expect(String(r.reason)).toContain(`request id ${requestId}`);
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  it('a running (known) earlier job still follows the policy: no extra question', async () => {
    h = await startHarness({ config: { confirm: { mode: 'never' } } });
    expect(structured(await h.call(TOOL, ARGS)).status).toBe('submitted');
    const again = structured(await h.call(TOOL, { ...ARGS, allow_duplicate: true }));
    expect(again.status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(2);
  });
});
