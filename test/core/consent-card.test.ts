/**
 * Issue 18 item 5, through a real client in both eras: the confirmation form (2025 pushed, 2026
 * `input_required`) and the App's consent card (`_meta['genplat/confirm'].card` of a quote) show every field sent
 * — run_model params, template fields, a 500-character script in full — and whether the bound is proven. The
 * card and the form come from one function (src/paid/consent-card.ts), so they say the same thing; the
 * model-facing next step stays short (the script is not in it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsentCard, cardText } from '../../src/paid/consent-card.js';
import { billableExample } from '../helpers/examples.js';
import { type Harness, type HarnessOptions, startHarness, structured } from '../helpers/harness.js';

const SCRIPT = `${'Every word of this script is read aloud and paid for. '.repeat(10).slice(0, 499)}.`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The form's message for one call (the client declines, so nothing is sent). */
async function formMessage(tool: string, args: (h: Harness) => Record<string, unknown>): Promise<string> {
  const asked: string[] = [];
  h = await startHarness({
    config: { confirm: { mode: 'always' } },
    onElicit: async (req) => {
      asked.push(req.params.message);
      return { action: 'decline' };
    },
  });
  const r = await h.call(tool, args(h), { raw: true });
  expect(structured(r).status).toBe('declined');
  expect(h.sim.log.entries().filter((e) => e.method === 'POST')).toHaveLength(0);
  expect(asked).toHaveLength(1);
  return asked[0]!;
}

/** A quote (no form: the token flow) and its App card. */
async function quote(opts: HarnessOptions, tool: string, args: (h: Harness) => Record<string, unknown>) {
  h = await startHarness({ ...opts, config: { confirm: { mode: 'always' }, ...opts.config } });
  const r = await h.call(tool, args(h), { raw: true });
  const env = structured(r);
  expect(env.status).toBe('confirmation_required');
  const meta = r._meta?.['genplat/confirm'] as { card: ConsentCard };
  return { env, card: meta.card };
}

describe('the form shows everything that changes the price', () => {
  it('run_model: every param, and the bound proven from published prices', async () => {
    const args = (x: Harness) => {
      const a = billableExample('run_model').args(x.sim, 7) as { model: string; params: Record<string, unknown> };
      return { ...a, params: { ...a.params, negative_prompt: 'no dogs' } };
    };
    const msg = await formMessage('run_model', args);
    const sent = args(h!) as { model: string; params: Record<string, unknown> };
    expect(msg).toContain(`- model: ${sent.model}\n`);
    for (const [k, v] of Object.entries(sent.params)) expect(msg).toContain(`- params.${k}: ${String(v)}\n`);
    expect(msg).toMatch(/^Cost: at most [\d,]+ credits \([\d.]+ API credit units?\), proven from published prices\.$/m);
  });

  it('create_template_video: every template field and the template id', async () => {
    const args = (x: Harness) => billableExample('create_template_video').args(x.sim, 3);
    const msg = await formMessage('create_template_video', args);
    const sent = args(h!) as { template_id: string; fields: Record<string, string> };
    for (const [k, v] of Object.entries(sent.fields)) expect(msg).toContain(`- ${k}: ${v}\n`);
    expect(msg).toContain(`- template_id: ${sent.template_id}\n`);
  });

  it('a 500-character script is in the form in full, folded on its own block', async () => {
    const msg = await formMessage('create_talking_video', () => ({ avatar_id: 'av_marcus', voice_script: SCRIPT }));
    expect(msg).toContain(`- voice_script (500 characters, in full):\n    ${SCRIPT}\n`);
  });

  it('an unpublished price says so, and where its figure comes from', async () => {
    const msg = await formMessage('animate_gesture', (x) => billableExample('animate_gesture').args(x.sim, 1));
    expect(msg).toMatch(
      /^Cost: not published: the platform publishes no price for this call; quoted at up to [\d,]+ credits .* from the per-call ceiling, not from the platform/m,
    );
    expect(msg).toContain('- prompt: waves at the camera, take 1\n');
  });
});

describe("the App's consent card is the same card", () => {
  it('a quote carries the card in _meta (every field, the script whole); the next step stays short', async () => {
    const args = { avatar_id: 'av_marcus', voice_script: SCRIPT };
    const { env, card } = await quote({}, 'create_talking_video', () => args);
    expect(card.fields).toEqual([
      { name: 'avatar_id', value: 'av_marcus', long: false },
      { name: 'voice_script', value: SCRIPT, long: true },
    ]);
    expect(card).toMatchObject({ tool: 'create_talking_video', bounded: true });
    expect(card.price).toBe(
      `at most ${(env.estimate as { credits: number }).credits} credits (${(env.estimate as { api_units: number }).api_units} API credit unit${(env.estimate as { api_units: number }).api_units === 1 ? '' : 's'}), proven from published prices`,
    );
    // The model reads the cost sentence, not the script (tokens): the card is in _meta for the View.
    expect(String(env.next_step)).toContain(`Show the user the cost (${card.price})`);
    expect(String(env.next_step)).not.toContain(SCRIPT.slice(0, 100));
    // The form would show exactly this card.
    expect(cardText(card)).toContain(`    ${SCRIPT}\n`);
  });
});
