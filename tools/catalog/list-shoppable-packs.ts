import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { packView, readPacks } from '../_shared/packs.js';

export default defineTool({
  name: 'list_shoppable_packs',
  title: 'List shoppable packs',
  toolset: 'catalog',
  description: 'Shoppable ad categories: formats, durations, aspect ratios, credits, defaults.',
  input: {},
  output: {
    packs: z.array(
      z.object({
        category: z.string(),
        label: z.string().optional(),
        formats: z.array(z.string()),
        durations: z.array(z.string()).optional(),
        aspect_ratios: z.array(z.string()).optional(),
        credits: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
        defaults: z.record(z.string(), z.string()).optional(),
      }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(_input, ctx) {
    return { structured: { packs: readPacks(await ctx.catalog.packs()).map(packView) } };
  },
});
