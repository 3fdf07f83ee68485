import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { ModelRowSchema } from '../enterprise/models/row.js';

export default defineTool({
  name: 'list_models',
  title: 'List models',
  toolset: 'catalog',
  description:
    'Live model catalog (id, media, credits, webhooks) + dedicated video family. run_model params: genplat://models/{model}.',
  input: {
    media: z.enum(['image', 'video']).optional().describe('image or video models only'),
  },
  output: {
    models: z.array(ModelRowSchema),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ media }, ctx) {
    // The rows need the model registry (13 model modules): loaded on the first call, not at start-up.
    const { modelRows } = await import('../enterprise/models/listing.js');
    const entries = await ctx.catalog.models();
    const models = modelRows(entries, ctx.config.vendors, media);
    // The family route needs the vendor C name; without it the family cannot be listed or used.
    const note = ctx.config.vendors.C
      ? undefined
      : 'Dedicated video family not listed: set GENPLAT_VENDORS=C=<name> to use create_family_video.';
    return { structured: { models, ...(note ? { note } : {}) } };
  },
});
