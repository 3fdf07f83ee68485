import { z } from 'zod';
import { PICKER_URI } from '../../src/apps/uris.js';
import { defineTool } from '../../src/define-tool.js';

/** Empty strings ("may be empty" in the spec) are dropped: they cost tokens and say nothing. */
const filled = (o: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'string' && v !== ''));

export default defineTool({
  name: 'list_avatars',
  title: 'List avatars',
  toolset: 'catalog',
  description:
    'Stock and custom avatars: id, name, gender, age range, type. For create_talking_video (avatar_id). Free.',
  input: {
    gender: z.string().trim().min(1).max(32).optional().describe('e.g. Female or Male; case-insensitive'),
  },
  output: {
    avatars: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          gender: z.string().optional(),
          age_range: z.string().optional(),
          type: z.string().optional(),
          skin: z.string().optional(),
        }),
      )
      .describe('use id as avatar_id'),
    count: z.number().int(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  ui: PICKER_URI,
  async run({ gender }, ctx) {
    const list = await ctx.catalog.avatars(gender ? { gender } : undefined);
    const avatars = list.map((a) => ({
      id: a.id,
      name: a.name,
      ...filled({ gender: a.gender, age_range: a.age_range, type: a.type, skin: a.skin }),
    }));
    // Thumbnails go to the picker App in `_meta`: a grid needs them, the model does not (they cost tokens).
    const media = Object.fromEntries(list.filter((a) => a.thumbnail).map((a) => [a.id, { thumbnail: a.thumbnail }]));
    return { structured: { avatars, count: avatars.length }, meta: { 'genplat/media': media } };
  },
});
