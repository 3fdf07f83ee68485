import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import listTemplateCategories from '../../../tools/catalog/list-template-categories.js';
import { type Harness, startHarness, structured } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [listTemplateCategories] as unknown as ToolSpec[] });
});
afterAll(() => h.close());

describe('list_template_categories', () => {
  it('is a read tool', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'list_template_categories')!;
    expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    expect(t.description!.length).toBeLessThan(300);
  });

  it('lists value and label of every category, "all" included, without extra fields', async () => {
    const r = await h.call('list_template_categories', {});
    expect(r.isError).toBeFalsy();
    const categories = structured(r).categories as { value: string; label: string }[];
    expect(categories).toEqual(h.sim.data.categories.map((c) => ({ value: c.value, label: c.label })));
    expect(categories.map((c) => c.value)).toContain('all');
  });
});
