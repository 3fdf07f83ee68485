import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { shoppableEstimate } from '../../src/paid/pricing/estimate.js';
import { choosePack, packCredits, readPacks } from '../_shared/packs.js';
import { packValue, shoppableContext } from '../_shared/params.js';
import { publicMediaUrl } from '../_shared/urls.js';

/** The spec gives no count for image_urls; 10 product shots is generous for one ad and keeps requests bounded. */
const MAX_IMAGES = 10;

export default defineTool({
  name: 'create_shoppable_video',
  title: 'Shoppable ad video',
  toolset: 'ads',
  description:
    'Shoppable ad video from product photos; category, format, duration: list_shoppable_packs. Variants: create_campaign. Billable.',
  input: {
    category: packValue('from list_shoppable_packs'),
    format: packValue('for the category'),
    image_urls: z.array(publicMediaUrl('image')).min(1).max(MAX_IMAGES).describe('product images'),
    duration: z.string().min(1).max(16).optional().describe('seconds, from the pack'),
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
    kind: () => 'shoppable_video' as const,
    async estimate(input, ctx) {
      const { pack, duration } = choosePack(readPacks(await ctx.catalog.packs()), input);
      return shoppableEstimate(
        ctx.config,
        'video',
        packCredits(pack, 'video', duration ?? pack.defaults?.duration),
        pack.category,
        input.image_urls.length,
      );
    },
    summary: (input) =>
      `shoppable video, ${input.category}/${input.format}, ${input.duration ?? 'default'} s, ${input.image_urls.length} image(s)`,
  },
  async request(input, ctx) {
    // The platform's own spelling of the pack values (validate accepted a case or unit variant).
    const choice = choosePack(readPacks(await ctx.catalog.packs()), input);
    const duration = choice.duration ?? choice.pack.defaults?.duration;
    const body = {
      category: choice.pack.category,
      format: choice.format,
      image_urls: input.image_urls,
      ...(duration ? { duration } : {}),
      ...(input.context ? { context: input.context } : {}),
      ...(choice.aspectRatio ? { aspect_ratio: choice.aspectRatio } : {}),
    };
    return { route: '/shopable/videos', body };
  },
  async run(_input, ctx, { body }) {
    // No `signal`: once the paid POST is sent, only its answer tells us the job id; a cancel must not lose it.
    const { data, requestId } = await ctx.client.ads.createVideo(body);
    return { ref: { kind: 'shoppable_video' as const, id: data.id }, requestId, remote: { id: data.id } };
  },
});
