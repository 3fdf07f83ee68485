import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import listTemplates from '../../../tools/catalog/list-templates.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'list_templates';
type Item = { id: string; title: string; credit: string; category: string[]; fields: Record<string, unknown> };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [listTemplates] as unknown as ToolSpec[] });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

const items = (r: Awaited<ReturnType<Harness['call']>>) => structured(r).templates as Item[];

describe('list_templates', () => {
  it('is a read tool in the catalog set with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect((t.inputSchema.properties as Record<string, { description?: string }>).category?.description).toBeTruthy();
  });

  it('lists every template compactly: id, title, credit, category, fields {type, label, max}', async () => {
    const r = await h.call(TOOL, {});
    expect(r.isError).toBeFalsy();
    const list = items(r);
    expect(list.map((t) => t.id).sort()).toEqual(h.sim.data.templates.map((t) => t.id).sort());
    const seeded = h.sim.data.templates.find((t) => t.title === 'Product spotlight')!;
    expect(list.find((t) => t.id === seeded.id)).toEqual({
      id: seeded.id,
      title: 'Product spotlight',
      credit: seeded.credit,
      category: seeded.category,
      fields: {
        product_name: { type: 'input', label: 'Product name', max: 40 },
        product_image: { type: 'image', label: 'Product image' },
      },
    });
    // Compact: no thumbnails or simulator extras reach the model.
    expect(JSON.stringify(list)).not.toMatch(/thumbnail|_sim/);
  });

  it('filters by category; "all" is everything', async () => {
    const events = items(await h.call(TOOL, { category: 'events' }));
    const expected = h.sim.data.templates.filter((t) => t.category.includes('events')).map((t) => t.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(events.map((t) => t.id)).toEqual(expected);
    expect(
      h.sim.log.entries().some((e) => e.path === '/content-library/templates' && e.query.category === 'events'),
    ).toBe(true);
    expect(items(await h.call(TOOL, { category: 'all' }))).toHaveLength(h.sim.data.templates.length);
  });

  it('rejects an unknown category, pointing at list_template_categories', async () => {
    const r = await h.call(TOOL, { category: 'nope' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/category[\s\S]*list_template_categories/);
    expect(h.sim.log.count({ path: '/content-library/templates' })).toBe(0);
  });
});
