import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';

export default defineTool({
  name: 'list_template_categories',
  title: 'List template categories',
  toolset: 'catalog',
  description: 'Template categories (value, label; includes "all") for list_templates.',
  input: {},
  output: { categories: z.array(z.object({ value: z.string(), label: z.string() })) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(_input, ctx) {
    const list = await ctx.catalog.categories();
    return { structured: { categories: list.map((c) => ({ value: c.value, label: c.label })) } };
  },
});
