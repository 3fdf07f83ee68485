import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { compactTemplate } from '../_shared/library.js';

const Field = z.object({ type: z.string(), label: z.string().optional(), max: z.number().optional() });

export default defineTool({
  name: 'list_templates',
  title: 'List content-library templates',
  toolset: 'catalog',
  description: 'Content-library templates: id, title, credit, categories, required fields. For create_template_video.',
  input: {
    category: z.string().min(1).max(64).optional().describe('from list_template_categories; default all'),
  },
  output: {
    templates: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        credit: z.string(),
        category: z.array(z.string()),
        fields: z.record(z.string(), Field),
      }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async validate({ category }, ctx) {
    // An unknown category would just list nothing; say why instead (the category list is cached).
    if (category === undefined || category === 'all') return;
    const categories = await ctx.catalog.categories();
    if (!categories.some((c) => c.value === category)) {
      throw new UserInputError('category', 'unknown; see list_template_categories');
    }
  },
  async run({ category }, ctx) {
    const list = await ctx.catalog.templates(category === 'all' ? undefined : category);
    return { structured: { templates: list.map(compactTemplate) } };
  },
});
