import { describe, expect, it } from 'vitest';
import {
  customAvatarEstimate,
  familyEstimate,
  gestureEstimate,
  productHumanEstimate,
  productV2Estimate,
  scenesEstimate,
  shoppableEstimate,
  talkingVideoEstimate,
  templateEstimate,
  upscaleEstimate,
} from '../../../src/cost/estimate.js';
import { UserInputError } from '../../../src/errors.js';

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

  it('template credit string', () => {
    expect(templateEstimate('200').credits).toBe(200);
    expect(templateEstimate('150 credits').credits).toBe(150);
    expect(templateEstimate(250).credits).toBe(250);
    expect(() => templateEstimate('free-ish')).toThrow(UserInputError);
    expect(() => templateEstimate(undefined)).toThrow(/check the template|template/i);
  });

  it('assumed figures say so', () => {
    expect(gestureEstimate()).toMatchObject({ credits: 100, basis: expect.stringMatching(/assumed/) });
    expect(familyEstimate('seedance-2.5').basis).toMatch(/assumed/);
    expect(shoppableEstimate('video', undefined).basis).toMatch(/assumed/);
    expect(shoppableEstimate('image', 100)).toMatchObject({
      credits: 100,
      basis: expect.not.stringMatching(/assumed/),
    });
  });

  it('upscale follows the quote', () => {
    expect(upscaleEstimate(340)).toMatchObject({ credits: 340, api_units: 3.4 });
  });
});
