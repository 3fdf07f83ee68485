/** <vendorJ>-broll: b-roll video from an image, polling-only, strict; 50 credits (spec). */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, type ModelSpec, prompt } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.strictObject({
    prompt: prompt({ min: 1, max: 2000 }),
    image_url: publicMediaUrl('source image'),
  });

export const broll: ModelSpec = defineModel({
  shape: '<vendorJ>-broll',
  letter: 'J',
  suffix: '-broll',
  matchBy: 'suffix',
  media: 'video',
  strict: true,
  webhook: false,
  webhookStated: true,
  params,
  notes:
    'B-roll video; duration and output settings are set by the service. Credits are reserved first: if submission is unconfirmed, check the project before resubmitting. Polling-only.',
  pricing: { fixed: () => ({ credits: 50, basis: '0.5 API units (50 credits) per generation' }) },
});
