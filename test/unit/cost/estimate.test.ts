import { describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import {
  customAvatarEstimate,
  familyEstimate,
  finaliseEstimate,
  gestureEstimate,
  productHumanEstimate,
  productV2Estimate,
  scenesEstimate,
  shoppableEstimate,
  talkingVideoEstimate,
  templateEstimate,
  unboundedEstimate,
  upscaleEstimate,
} from '../../../src/paid/pricing/estimate.js';

const CONFIG = { priceTable: {}, maxCreditsPerCall: 2000 };
/** A template call: its credit value, field types and values (none by default). */
const tpl = (
  credit: string | number | undefined,
  fields: Record<string, string> = {},
  types: Record<string, string> = {},
) => templateEstimate(CONFIG, { id: 't', credit, types, fields });
const TABLE = {
  priceTable: { animate_gesture: 150, 'create_family_video:seedance-2.5': 400, create_family_video: 300 },
  maxCreditsPerCall: 2000,
};

describe('spec prices', () => {
  it('fixed prices (displayed credits, API units = /100)', () => {
    expect(talkingVideoEstimate()).toMatchObject({ credits: 100, api_units: 1 });
    expect(customAvatarEstimate()).toMatchObject({ credits: 100, api_units: 1 });
    expect(productV2Estimate()).toMatchObject({ credits: 100 });
  });

  it('human engine: 100 under 15 s, 200 for 15-30 s, upper price when unknown', () => {
    expect(productHumanEstimate(14.9).credits).toBe(100);
    expect(productHumanEstimate(15).credits).toBe(200);
    expect(productHumanEstimate(30).credits).toBe(200);
    expect(productHumanEstimate(undefined)).toMatchObject({ credits: 200, basis: expect.stringMatching(/unknown/) });
  });

  it('scenes: count x 100 fast / 200 pro', () => {
    expect(scenesEstimate(1, 'fast')).toMatchObject({ credits: 100, api_units: 1 });
    expect(scenesEstimate(4, 'pro')).toMatchObject({ credits: 800, api_units: 8 });
    expect(scenesEstimate(3, 'fast').credits).toBe(300);
  });

  it('template credit string: the one price grammar; no bound → unbounded, never refused or guessed', () => {
    expect(tpl('150 credits')).toMatchObject({ credits: 150, bounded: true });
    expect(tpl('1,000 credits').credits).toBe(1000);
    expect(tpl('1 API unit').credits).toBe(100);
    expect(tpl('2.5 api credit units').credits).toBe(250);
    expect(tpl('150 Credits.').credits).toBe(150);
    expect(tpl('100-300 credits').credits).toBe(300);
    for (const text of ['free-ish', 'from 100', 'varies', '300 to 200', 'about 100', '100 + 20', '-5', '']) {
      expect(tpl(text), text).toMatchObject({ credits: 2000, bounded: false });
    }
    expect(tpl(undefined)).toMatchObject({ bounded: false });
  });

  it('issue 27: a bare template figure is read as API units, never as displayed credits', () => {
    // Before: "200" was 200 credits and "0.5" was 0.5 (rounded to 1), a hundredth of the dearer reading.
    expect(tpl('200')).toMatchObject({ credits: 20_000, bounded: true });
    expect(tpl('0.5')).toMatchObject({ credits: 50, bounded: true });
    expect(tpl(250).credits).toBe(25_000);
    expect(tpl('12.5').credits).toBe(1250);
    expect(tpl('100-200')).toMatchObject({ credits: 20_000, bounded: true });
  });

  it('issue 27: "1.000" (a thousand in many locales) is unbounded, never 1 credit', () => {
    expect(tpl('1.000')).toMatchObject({ credits: 2000, bounded: false, basis: expect.stringContaining('1.000') });
    expect(tpl('1.000 credits')).toMatchObject({ bounded: false });
  });

  it('issue 27: a template priced per reference image counts its image fields and media-shaped text fields', () => {
    const types = { photo: 'image', logo: 'image', headline: 'input', story: 'textarea', clip: 'video' };
    const fields = {
      photo: 'https://cdn.example.com/a.png',
      logo: 'https://cdn.example.com/b.png',
      headline: 'Hello',
      story: 'https://cdn.example.com/c.png',
      clip: 'https://cdn.example.com/d.mp4',
    };
    // photo, logo, clip (non-text types) and story (a URL in a text field): 4.
    expect(tpl('10 credits per reference image', fields, types)).toMatchObject({ credits: 40, bounded: true });
    expect(tpl('100 credits plus 5 credits per reference image', fields, types).credits).toBe(120);
    expect(tpl('10 credits per reference image', { headline: 'Hi' }, { headline: 'input' })).toMatchObject({
      credits: 0,
      bounded: true,
    });
  });

  it('templates go through the price grammar: a clause it cannot read is unbounded', () => {
    expect(tpl('100 credits; HD +50')).toMatchObject({ bounded: false });
    expect(tpl('100 credits per second')).toMatchObject({ bounded: false });
  });

  it('a bounded 0 for a billable call is not a quote: it becomes unbounded (operator table or ceiling)', () => {
    expect(finaliseEstimate(CONFIG, 'run_model', estimate(0, 'x'))).toMatchObject({ credits: 2000, bounded: false });
    expect(
      finaliseEstimate({ priceTable: { run_model: 70 }, maxCreditsPerCall: 2000 }, 'run_model', estimate(0, 'x')),
    ).toMatchObject({ credits: 70, bounded: false });
    expect(tpl('0')).toMatchObject({ credits: 0, bounded: true });
    expect(finaliseEstimate(CONFIG, 't', tpl('0'))).toMatchObject({ bounded: false });
    const fine = estimate(12, 'x');
    expect(finaliseEstimate(CONFIG, 'run_model', fine)).toBe(fine);
    const negative = estimate(-60, 'x');
    // Left to the guard, which refuses it unsent.
    expect(finaliseEstimate(CONFIG, 'run_model', negative)).toBe(negative);
  });

  it('unpublished prices: the operator table (most specific key first), else the per-call ceiling', () => {
    expect(gestureEstimate(CONFIG)).toMatchObject({
      credits: 2000,
      bounded: false,
      basis: expect.stringMatching(/not published.*per-call ceiling.*GENPLAT_MAX_CREDITS_PER_CALL/),
    });
    expect(gestureEstimate(TABLE)).toMatchObject({
      credits: 150,
      bounded: false,
      basis: expect.stringMatching(/operator price table \(GENPLAT_PRICE_TABLE "animate_gesture"\)/),
    });
    expect(familyEstimate(TABLE, 'seedance-2.5').credits).toBe(400);
    expect(familyEstimate(TABLE, 'seedance-2.0').credits).toBe(300);
    expect(familyEstimate(CONFIG, 'seedance-2.5')).toMatchObject({ credits: 2000, bounded: false });
    expect(shoppableEstimate(CONFIG, 'video', undefined, 'ugc')).toMatchObject({ credits: 2000, bounded: false });
    expect(shoppableEstimate(CONFIG, 'image', ['100 credits'], 'ugc')).toMatchObject({ credits: 100, bounded: true });
    expect(unboundedEstimate(CONFIG, ['x'], 'why').api_units).toBe(20);
  });

  it('upscale: the informational quote proves no bound (unbounded, never below the quote)', () => {
    const cfg = { priceTable: {}, maxCreditsPerCall: 2000 };
    expect(upscaleEstimate(cfg, 340)).toMatchObject({ credits: 2000, bounded: false });
    expect(upscaleEstimate({ ...cfg, priceTable: { upscale_video: 500 } }, 340)).toMatchObject({
      credits: 500,
      bounded: false,
    });
    expect(upscaleEstimate({ ...cfg, priceTable: { upscale_video: 300 } }, 340)).toMatchObject({
      credits: 340,
      bounded: false,
    });
  });
});

describe('shoppable pack prices (issue 27)', () => {
  it('a bare number proves nothing: the packs shape and its unit are unpublished', () => {
    for (const p of [100, '100', '0.5']) {
      expect(shoppableEstimate(CONFIG, 'image', [p], 'ugc'), String(p)).toMatchObject({
        credits: 2000,
        bounded: false,
      });
    }
  });

  it('a price text with its unit word bounds; several candidates: all bounded, the dearest', () => {
    expect(shoppableEstimate(CONFIG, 'video', ['300 credits', '400 credits'], 'ugc')).toMatchObject({
      credits: 400,
      bounded: true,
    });
    expect(shoppableEstimate(CONFIG, 'video', ['300 credits', 400], 'ugc')).toMatchObject({ bounded: false });
    expect(shoppableEstimate(CONFIG, 'video', [], 'ugc')).toMatchObject({ bounded: false });
  });
});

describe('human engine speech length (issue 27)', () => {
  it('always the upper tier: no heuristic of the spoken length is a bound', () => {
    // A script of web addresses was quoted 100 by the old words/characters heuristic; TTS may read it past 15 s.
    expect(productHumanEstimate(undefined)).toMatchObject({ credits: 200, basis: expect.stringContaining('30 s') });
  });
});
