/**
 * Issue 18 item 5: the consent card (src/paid/consent-card.ts) is what a person approves. Pinned whole: the
 * form's message for a bounded run_model call (every `params` entry) and for an unbounded template call (every
 * field, a 500-character script given in full on its own block, never cut).
 */
import { describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import { cardText, consentCard, INLINE_MAX, priceLine } from '../../../src/paid/consent-card.js';
import { consentMessage } from '../../../src/paid/guard.js';
import { unboundedEstimate } from '../../../src/paid/pricing/estimate.js';

const SCRIPT = `${'Every word of this script is read aloud and paid for. '.repeat(10).slice(0, 499)}.`;

describe('consent card', () => {
  it('a bounded run_model call: every param, the proven bound', () => {
    const body = {
      model: 'acme-video-t2v',
      params: { prompt: 'a cat surfing a wave at dawn', duration: 10, resolution: '1080p', seed: null, loop: false },
      project_id: 'p1',
    };
    const est = estimate(240, 'catalog credits "24 per second" × 10 s');
    expect(consentMessage('run_model', est, 'run acme-video-t2v (video)', undefined, body)).toMatchInlineSnapshot(`
      "run_model: run acme-video-t2v (video).
      Cost: at most 240 credits (2.4 API credit units), proven from published prices.
      How: catalog credits "24 per second" × 10 s.
      Sent to the platform (7 fields):
      - model: acme-video-t2v
      - params.prompt: a cat surfing a wave at dawn
      - params.duration: 10
      - params.resolution: 1080p
      - params.seed: null
      - params.loop: false
      - project_id: p1
      Confirm to start the job."
    `);
  });

  it('an unbounded template call: every field, a 500-character script in full, the unpublished wording', () => {
    expect(SCRIPT).toHaveLength(500);
    const body = {
      product_name: 'Thermo bottle',
      script: SCRIPT,
      product_image: 'https://cdn.example.com/bottle.png',
      template_id: '7d1c2a8e-1111-4222-8333-444455556666',
    };
    const est = unboundedEstimate(
      { priceTable: {}, maxCreditsPerCall: 2000 },
      ['create_template_video'],
      'credit "varies"',
    );
    const text = consentMessage(
      'create_template_video',
      est,
      'template video from template 7d1c2a8e-1111-4222-8333-444455556666 (fields: product_name, script, product_image)',
      undefined,
      body,
    );
    expect(text).toContain(`\n    ${SCRIPT}\n`);
    expect(text).toMatchInlineSnapshot(`
      "create_template_video: template video from template 7d1c2a8e-1111-4222-8333-444455556666 (fields: product_name, script, product_image).
      Cost: not published: the platform publishes no price for this call; quoted at up to 2,000 credits (20 API credit units) from the per-call ceiling, not from the platform; the real charge is known only after the job starts.
      How: price not published (credit "varies"); quoted at the per-call ceiling of 2000 credits (GENPLAT_MAX_CREDITS_PER_CALL); set GENPLAT_PRICE_TABLE "create_template_video" for a tighter figure.
      Sent to the platform (4 fields):
      - product_name: Thermo bottle
      - script (500 characters, in full):
          Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of this script is read aloud and paid for. Every word of.
      - product_image: https://cdn.example.com/bottle.png
      - template_id: 7d1c2a8e-1111-4222-8333-444455556666
      Confirm to start the job."
    `);
  });

  it('folds, never cuts: long and multi-line values are whole; nested arrays and files are named by path', () => {
    const card = consentCard({
      tool: 't',
      body: { a: 'x'.repeat(INLINE_MAX + 1), b: 'one\ntwo', c: [{ d: 1 }, 'e'], f: new Uint8Array([1, 2, 3]), g: [] },
      estimate: estimate(1, 'b'),
      summary: 's',
    });
    expect(card.fields).toEqual([
      { name: 'a', value: 'x'.repeat(INLINE_MAX + 1), long: true },
      { name: 'b', value: 'one\ntwo', long: true },
      { name: 'c[0].d', value: '1', long: false },
      { name: 'c[1]', value: 'e', long: false },
      {
        name: 'f',
        value: 'file of 3 bytes, sha256 039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81',
        long: true,
      },
      { name: 'g', value: '[]', long: false },
    ]);
    expect(cardText(card)).toContain('- b (7 characters, in full):\n    one\n    two\n');
  });

  it('the price line says which figure is proven and where an unpublished one comes from', () => {
    expect(priceLine(estimate(100, 'spec'))).toBe(
      'at most 100 credits (1 API credit unit), proven from published prices',
    );
    const table = unboundedEstimate(
      { priceTable: { animate_gesture: 150 }, maxCreditsPerCall: 2000 },
      ['animate_gesture'],
      'x',
    );
    expect(priceLine(table)).toMatch(
      /^not published: .* up to 150 credits \(1\.5 API credit units\) from the operator's price table, not from the platform/,
    );
  });
});
