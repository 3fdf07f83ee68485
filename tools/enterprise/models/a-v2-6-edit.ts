/** <vendorA>-v2.6-edit: image edit; each of max_images is charged. Bounds are not published. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, imageSize, int, type ModelSpec, prompt, text } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1 }),
    image_urls: z.array(publicMediaUrl('image to edit')).min(1, 'must have at least 1 item'),
    image_size: imageSize().optional(),
    max_images: int(1).describe('each image is charged').optional(),
    enable_safety_checker: z.boolean().optional(),
    negative_prompt: text().optional(),
    enable_prompt_expansion: z.boolean().optional(),
  });

export const aV26Edit: ModelSpec = defineModel({
  shape: '<vendorA>-v2.6-edit',
  letter: 'A',
  suffix: '-v2.6-edit',
  matchBy: 'suffix',
  media: 'image',
  strict: false,
  webhook: true,
  webhookStated: false,
  params,
  notes: 'Edits images; up to max_images outputs, each charged.',
  // "each image consumes credits"; max_images has no published default or maximum, so an absent one leaves
  // the output count (and the quote) unbounded.
  pricing: { count: { field: 'max_images' } },
});
