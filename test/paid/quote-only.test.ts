/**
 * Issue 30 item 6: a credential that may quote but not spend (`genplat:quote`, or a static token scoped `quote`)
 * gets the quote and the consent card, and nothing it does admits a paid call: no confirmation token (not even one
 * a spend-capable credential of the same owner was given), no answered form (2025 elicitation, 2026 input_required:
 * the harness runs both eras), no auto-approve policy, for a single call and a campaign alike. Refused before any
 * admission: the store holds no record and the simulator got no POST. The same owner with spend access still starts
 * the job with the very token the quote-only caller could not use.
 */

import type { ElicitResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, type HarnessOptions, startHarness, structured } from '../helpers/harness.js';

const OWNER = 'oidc:0123456789abcdef';
const TOOL = 'create_talking_video';
const ARGS = { avatar_id: 'av_ava', voice_script: 'Planned by an agent, started by a person.' };
const CAMPAIGN = {
  items: [{ tool: TOOL, arguments: { avatar_id: 'av_ava', voice_script: 'Campaign planned by an agent.' } }],
};

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function harness(opts: HarnessOptions): Promise<Harness> {
  const h = await startHarness({ owner: OWNER, ...opts });
  open.push(h);
  return h;
}

type Envelope = { status: string; confirmation_token?: string; reason?: string; next_step: string };
const envelope = (r: Awaited<ReturnType<Harness['call']>>) => structured(r) as unknown as Envelope;

/** The quote-only answer: a quote, no token, the reason, and how a person who may spend starts it. */
function expectQuoteOnly(e: Envelope) {
  expect(e.status).toBe('confirmation_required');
  expect(e.confirmation_token).toBeUndefined();
  expect(e.reason).toMatch(/may quote but not spend \(scope genplat:quote\): nothing was admitted or sent/);
  expect(e.next_step).toMatch(/a person whose own credential may spend .* with the same arguments/);
  expect(e.next_step).toMatch(/same request fingerprint [0-9a-f]{12}/);
}

async function nothingAdmitted(h: Harness) {
  expect(h.sim.log.count({ method: 'POST' })).toBe(0);
  expect(await h.jobs.list({})).toHaveLength(0);
}

describe('a quote-only credential', () => {
  it('gets the quote and card of a paid call, with the fingerprint a spender will see, and no token', async () => {
    const h = await harness({ access: 'quote', config: { confirm: { mode: 'always' } } });
    const r = await h.call(TOOL, ARGS);
    expect(r.isError).toBeFalsy();
    const e = envelope(r);
    expectQuoteOnly(e);
    await nothingAdmitted(h);

    // The fingerprint it names is the one a spend-capable caller's quote of the same call is bound to.
    const spender = await harness({ sim: h.sim, stateDir: h.stateDir, config: { confirm: { mode: 'always' } } });
    const theirs = envelope(await spender.call(TOOL, ARGS));
    const fp = /fingerprint ([0-9a-f]{12})/.exec(e.next_step)?.[1];
    expect(theirs.confirmation_token).toBeDefined();
    expect(fp).toBeDefined();
    // The token's claims carry the fingerprint (base64url JSON before the signature).
    const claims = JSON.parse(Buffer.from(theirs.confirmation_token!.split('.')[0]!, 'base64url').toString());
    expect(String(claims.fingerprint)).toMatch(new RegExp(`^${fp}`));
  });

  it('is not admitted by an answered confirmation form (elicitation or input_required), which is never shown', async () => {
    let asked = 0;
    const accept = async (): Promise<ElicitResult> => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    };
    const h = await harness({ access: 'quote', onElicit: accept, config: { confirm: { mode: 'always' } } });
    expectQuoteOnly(envelope(await h.call(TOOL, ARGS)));
    expect(asked).toBe(0);
    await nothingAdmitted(h);
  });

  it('is not admitted by the auto-approve policy (GENPLAT_CONFIRM=never)', async () => {
    const h = await harness({ access: 'quote', config: { confirm: { mode: 'never' } } });
    expectQuoteOnly(envelope(await h.call(TOOL, ARGS)));
    expectQuoteOnly(envelope(await h.call('create_campaign', CAMPAIGN)));
    await nothingAdmitted(h);
  });

  it("cannot use a valid token of the same owner's spend credential; that credential then starts the job", async () => {
    const spender = await harness({ config: { confirm: { mode: 'always' } } });
    const quoter = await harness({
      access: 'quote',
      sim: spender.sim,
      stateDir: spender.stateDir,
      config: { confirm: { mode: 'always' } },
    });
    const token = envelope(await spender.call(TOOL, ARGS)).confirmation_token;
    const campaignToken = envelope(await spender.call('create_campaign', CAMPAIGN)).confirmation_token;
    expect(token).toBeDefined();
    expect(campaignToken).toBeDefined();

    expectQuoteOnly(envelope(await quoter.call(TOOL, { ...ARGS, confirmation_token: token })));
    expectQuoteOnly(envelope(await quoter.call('create_campaign', { ...CAMPAIGN, confirmation_token: campaignToken })));
    await nothingAdmitted(quoter);

    // Unused, so still good for the person who may spend: one POST, the job they confirmed.
    expect(envelope(await spender.call(TOOL, { ...ARGS, confirmation_token: token })).status).toBe('submitted');
    expect(spender.sim.log.count({ method: 'POST' })).toBe(1);
  });
});
