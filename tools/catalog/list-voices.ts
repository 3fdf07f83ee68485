import { z } from 'zod';
import { PICKER_URI } from '../../src/apps/uris.js';
import { defineTool } from '../../src/define-tool.js';

const filled = (o: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'string' && v !== ''));

export default defineTool({
  name: 'list_voices',
  title: 'List voices',
  toolset: 'catalog',
  description:
    'Stock and custom voices: id, name, language, gender, accent. voice_id takes the id (not its voiceId). Free.',
  input: {
    language: z.string().trim().min(1).max(64).optional().describe('e.g. English'),
    gender: z.string().trim().min(1).max(32).optional().describe('e.g. Female'),
  },
  output: {
    voices: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          language: z.string().optional(),
          gender: z.string().optional(),
          accent: z.string().optional(),
          country: z.string().optional(),
          is_custom: z.boolean().optional(),
        }),
      )
      .describe('use id as voice_id'),
    count: z.number().int(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  ui: PICKER_URI,
  async run({ language, gender }, ctx) {
    const list = await ctx.catalog.voices({ ...(language ? { language } : {}), ...(gender ? { gender } : {}) });
    // voiceId is left out on purpose: the spec says it is not interchangeable with id, and agents confuse them.
    const voices = list.map((v) => ({
      id: v.id,
      name: v.name,
      ...filled({ language: v.language, gender: v.gender, accent: v.accent, country: v.country }),
      ...(v.isCustom !== undefined ? { is_custom: v.isCustom } : {}),
    }));
    // Previews and thumbnails go to the picker App in `_meta` (it plays them); the model needs only the ids.
    const media = Object.fromEntries(
      list
        .filter((v) => v.previewUrl)
        .map((v) => [
          v.id,
          filled({ preview: v.previewUrl, thumbnail: typeof v.thumbnail === 'string' ? v.thumbnail : undefined }),
        ]),
    );
    return { structured: { voices, count: voices.length }, meta: { 'genplat/media': media } };
  },
});
