import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { shoppableEstimate } from '../../src/paid/pricing/estimate.js';
import { choosePack, packCredits, readPacks } from '../_shared/packs.js';
import { packValue, shoppableContext } from '../_shared/params.js';
import { publicMediaUrl } from '../_shared/urls.js';

export default defineTool({
  name: 'create_shoppable_image',
  title: 'Shoppable ad image',
  toolset: 'ads',
  description:
    'Shoppable ad image from a product photo; category, format: list_shoppable_packs. Variants: create_campaign. Billable.',
  input: {
    category: packValue('from list_shoppable_packs'),
    format: packValue('for the category'),
    image_url: publicMediaUrl('product image'),
    context: shoppableContext(),
    aspect_ratio: z
      .string()
      .regex(/^\d+:\d+$/)
      .optional()
      .describe('e.g. 9:16'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    choosePack(readPacks(await ctx.catalog.packs()), input);
  },
  billable: {
    kind: () => 'shoppable_image' as const,
    async estimate(input, ctx) {
      const { pack } = choosePack(readPacks(await ctx.catalog.packs()), input);
      return shoppableEstimate(ctx.config, 'image', packCredits(pack, 'image'), pack.category, 1);
    },
    summary: (input) => `shoppable image, ${input.category}/${input.format}`,
  },
  async request(input, ctx) {
    // The platform's own spelling of the pack values (validate accepted a case or unit variant).
    const choice = choosePack(readPacks(await ctx.catalog.packs()), input);
    const body = {
      category: choice.pack.category,
      format: choice.format,
      image_url: input.image_url,
      ...(input.context ? { context: input.context } : {}),
      ...(choice.aspectRatio ? { aspect_ratio: choice.aspectRatio } : {}),
    };
    return { route: '/shopable/images', body };
  },
  async run(_input, ctx, { body }) {
    // No `signal`: once the paid POST is sent, only its answer tells us the job id; a cancel must not lose it.
    const { data, requestId } = await ctx.client.ads.createImage(body);
    return { ref: { kind: 'shoppable_image' as const, id: data.id }, requestId, remote: { id: data.id } };
  },
});
