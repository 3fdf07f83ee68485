/** <vendorD>-video-t2v: text-to-video at 720p; 10 s = 50 credits, 15 s = 100 credits (spec). */
import { z } from 'zod';
import { defineModel, type ModelSpec, prompt, text } from './spec.js';

const PRICES: Record<number, number> = { 10: 50, 15: 100 };

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1 }),
    // Only 10 and 15 s have a published price; any other value could not be estimated before charging.
    duration: z
      .union([z.literal(10), z.literal(15)], { error: 'must be 10 or 15 (the only priced durations)' })
      .describe('seconds: 10 or 15')
      .optional(),
    aspect_ratio: text().optional(),
  });

export const dVideoT2v: ModelSpec = defineModel({
  shape: '<vendorD>-video-t2v',
  letter: 'D',
  suffix: '-video-t2v',
  // Short suffix another family may share (e.g. an "-imagine-video-t2v"): without the configured vendor D
  // name, only a one-word vendor part matches.
  matchBy: 'single-token',
  media: 'video',
  strict: false,
  webhook: true,
  webhookStated: false,
  params,
  notes: 'Text to 720p video. 10 s = 50 credits, 15 s = 100 credits; default duration not published.',
  pricing: {
    fixed: (p) => {
      const d = p.duration;
      // Default duration is not published: the dearer one, so the quote never falls short.
      if (d === 10 || d === 15) return { credits: PRICES[d]!, basis: `${d} s = ${PRICES[d]} credits` };
      return { credits: 100, basis: '15 s = 100 credits (default duration not published; the dearer assumed)' };
    },
  },
});
