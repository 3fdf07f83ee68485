/** <vendorC>-1-5-pro: one 12 s video scene per request, polling-only, strict; 50 credits (spec). */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, type ModelSpec, oneOf, prompt } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.strictObject({
    prompt: prompt({ min: 1, max: 2000 }),
    image_url: publicMediaUrl('first frame').optional(),
    aspect_ratio: oneOf(['9:16', '16:9', '1:1', '21:9', '4:3', '3:4']).describe('default 9:16').optional(),
    duration: z.literal(12, { error: 'must be 12 (the only allowed value)' }).describe('seconds; only 12').optional(),
  });

export const c15Pro: ModelSpec = defineModel({
  shape: '<vendorC>-1-5-pro',
  letter: 'C',
  suffix: '-1-5-pro',
  matchBy: 'suffix',
  media: 'video',
  strict: true,
  webhook: false,
  webhookStated: true,
  params,
  notes: 'One 12 s scene per request; send one request per scene. Polling-only.',
  // One 12 s scene (the only duration allowed) at the spec's 50 credits.
  pricing: { seconds: 12, fixed: () => ({ credits: 50, basis: '0.5 API units (50 credits) per scene' }) },
});
