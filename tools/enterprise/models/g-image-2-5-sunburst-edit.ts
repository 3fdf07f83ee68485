/**
 * <vendorG>-image-2.5-sunburst-edit: same fields as flare-edit, but the spec shows no allowed values, bounds,
 * strictness or webhook support, so only types (and public media URLs) are checked here.
 */
import { z } from 'zod';
import { publicMediaUrl } from '../../_shared/urls.js';
import { defineModel, type ModelSpec, prompt, text } from './spec.js';

// Built on first use (defineModel).
const params = () =>
  z.looseObject({
    prompt: prompt({ min: 1 }),
    image_urls: z.array(publicMediaUrl('image to edit')).min(1, 'must have at least 1 item'),
    size: text().optional(),
    quality: text().optional(),
    mask_url: publicMediaUrl('mask image').optional(),
    background: text().optional(),
    output_format: text().optional(),
    output_compression: z.number().optional(),
  });

export const sunburstEdit: ModelSpec = defineModel({
  shape: '<vendorG>-image-2.5-sunburst-edit',
  letter: 'G',
  suffix: '-image-2.5-sunburst-edit',
  matchBy: 'suffix',
  media: 'image',
  strict: false,
  webhook: true,
  webhookStated: false,
  params,
  notes: 'Edits images like flare-edit; allowed values and bounds are not published, so only types are checked.',
  // Spec: "depends on size, quality and output count". Its fields have no count: a call naming none asks for
  // one output; a count-like param it sends (n, num_images…) multiplies (usage.ts).
  pricing: {},
});
