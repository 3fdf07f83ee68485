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
  speechSecondsUpperBound,
  talkingVideoEstimate,
  templateEstimate,
  unboundedEstimate,
  upscaleEstimate,
} from '../../../src/paid/pricing/estimate.js';

const CONFIG = { priceTable: {}, maxCreditsPerCall: 2000 };
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

  it('template credit string: every number read; no bound → unbounded, never refused or guessed', () => {
    expect(templateEstimate(CONFIG, 't', '200')).toMatchObject({ credits: 200, bounded: true });
    expect(templateEstimate(CONFIG, 't', '150 credits').credits).toBe(150);
    expect(templateEstimate(CONFIG, 't', 250).credits).toBe(250);
    expect(templateEstimate(CONFIG, 't', '100-300 credits').credits).toBe(300);
    expect(templateEstimate(CONFIG, 't', 'free-ish')).toMatchObject({ credits: 2000, bounded: false });
    expect(templateEstimate(CONFIG, 't', 'from 100')).toMatchObject({ credits: 2000, bounded: false });
    expect(templateEstimate(CONFIG, 't', undefined)).toMatchObject({ bounded: false });
  });

  it('templates go through the price grammar: a clause it cannot read is unbounded', () => {
    expect(templateEstimate(CONFIG, 't', '100 credits; HD +50')).toMatchObject({ bounded: false });
    expect(templateEstimate(CONFIG, 't', '100 credits per second')).toMatchObject({ bounded: false });
  });

  it('a bounded 0 for a billable call is not a quote: it becomes unbounded (operator table or ceiling)', () => {
    expect(finaliseEstimate(CONFIG, 'run_model', estimate(0, 'x'))).toMatchObject({ credits: 2000, bounded: false });
    expect(
      finaliseEstimate({ priceTable: { run_model: 70 }, maxCreditsPerCall: 2000 }, 'run_model', estimate(0, 'x')),
    ).toMatchObject({ credits: 70, bounded: false });
    expect(templateEstimate(CONFIG, 't', '0')).toMatchObject({ credits: 0, bounded: true });
    expect(finaliseEstimate(CONFIG, 't', templateEstimate(CONFIG, 't', '0'))).toMatchObject({ bounded: false });
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
    expect(shoppableEstimate(CONFIG, 'image', 100, 'ugc')).toMatchObject({ credits: 100, bounded: true });
    expect(unboundedEstimate(CONFIG, ['x'], 'why').api_units).toBe(20);
  });

  it('speech length bound: words and characters at a slow pace, whichever is longer', () => {
    // 70 short words: 140 characters (14 s at 10/s) but 47 s at 1.5 words/s.
    expect(speechSecondsUpperBound(Array(70).fill('a').join(' '))).toBe(47);
    // Long words: characters dominate.
    expect(speechSecondsUpperBound('internationalisation '.repeat(10))).toBe(21);
    // Digits are spoken as words.
    expect(speechSecondsUpperBound('1234567890')).toBe(8);
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

describe('speech length of scripts without spaces (issue 18 review)', () => {
  it('an 83-character Chinese script is bounded at 15 s or more (the 200-credit tier)', () => {
    const script = '这是一个关于我们新产品的视频脚本，它非常好用，价格实惠，适合每一个家庭使用。'
      .repeat(2)
      .slice(0, 83);
    expect(speechSecondsUpperBound(script)).toBeGreaterThanOrEqual(15);
  });
});
