/** <vendorK>-v3-edit: single-image edit. Allowed values and bounds are not published. */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, imageSize, int, type ModelSpec, prompt, text } from './spec.js';

// Built on first use (defineModel).
const params = () => {
  // 0-255: r, g, b are 8-bit colour channels (our assumption; the spec says only "integers").
  const channel = int(0, 255);
  return z.looseObject({
    prompt: prompt({ min: 1 }),
    image_url: publicMediaUrl('image to edit'),
    image_size: imageSize().optional(),
    style: text().optional(),
    colors: z
      .array(z.strictObject({ r: channel, g: channel, b: channel }))
      .describe('palette of {r, g, b}')
      .optional(),
    strength: z.number().optional(),
    negative_prompt: text().optional(),
  });
};

export const kV3Edit: ModelSpec = defineModel({
  shape: '<vendorK>-v3-edit',
  letter: 'K',
  suffix: '-v3-edit',
  matchBy: 'suffix',
  media: 'image',
  strict: false,
  webhook: true,
  webhookStated: false,
  params,
  notes: 'Edits one image; image_size is a preset or {width, height}; colors is an {r, g, b} palette.',
  // Spec: "depends on model settings and output count". Its fields have no count: a call naming none asks for
  // one output; a count-like param it sends (n, num_images…) multiplies (usage.ts).
  pricing: {},
});
