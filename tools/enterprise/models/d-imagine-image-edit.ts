/** <vendorD>-imagine-image-edit: image edit, webhook supported; 10 credits per generation (spec). */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, type ModelSpec, oneOf, prompt } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1, max: 2000 }),
    image_urls: z
      .array(publicMediaUrl('image to edit'))
      .min(1, 'must have at least 1 item')
      .max(2, 'must have at most 2 items'),
    resolution: oneOf(['1k', '2k', '4k']).describe('default 1k').optional(),
    output_format: oneOf(['png', 'jpeg', 'webp']).describe('default jpeg').optional(),
  });

export const imagineImageEdit: ModelSpec = defineModel({
  shape: '<vendorD>-imagine-image-edit',
  letter: 'D',
  suffix: '-imagine-image-edit',
  matchBy: 'suffix',
  media: 'image',
  strict: false,
  webhook: true,
  webhookStated: true,
  params,
  notes: 'Edits up to 2 images. 10 credits per generation.',
  pricing: {
    defaults: { resolution: '1k' },
    fixed: () => ({ credits: 10, basis: '0.1 API units (10 credits) per generation' }),
  },
});
