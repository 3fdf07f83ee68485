/** <vendorI>-edit: image edit, polling-only, strict; each of num_images is charged. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, int, type ModelSpec, oneOf, prompt } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.strictObject({
    prompt: prompt({ min: 1, max: 2000 }),
    image_urls: z
      .array(publicMediaUrl('image to edit'))
      .min(1, 'must have at least 1 item')
      .max(2, 'must have at most 2 items'),
    num_images: int(1, 4).describe('default 1; each image is charged').optional(),
    aspect_ratio: oneOf(['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'])
      .describe('default 1:1')
      .optional(),
    output_format: oneOf(['png', 'jpeg', 'webp']).describe('default png').optional(),
    resolution: oneOf(['1K', '2K', '4K']).describe('default 1K').optional(),
  });

export const iEdit: ModelSpec = defineModel({
  shape: '<vendorI>-edit',
  letter: 'I',
  suffix: '-edit',
  // "-edit" alone is shared by many catalog edit variants (flux-, imagen-, seedream-style…), so only the
  // configured vendor I name can identify this model; anything else is passed through unvalidated.
  matchBy: 'exact',
  media: 'image',
  strict: true,
  webhook: false,
  webhookStated: true,
  params,
  notes: 'Edits 1-2 images; num_images outputs, each charged. Polling-only.',
  // "num_images: 1-4; default 1; each image consumes credits"; resolution default 1K.
  pricing: { count: { field: 'num_images', default: 1 }, defaults: { resolution: '1K' } },
});
