import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function readJson(uri: string): Promise<unknown> {
  const r = await h.client.readResource({ uri });
  const c = r.contents[0] as { uri: string; mimeType?: string; text: string };
  expect(c.mimeType).toBe('application/json');
  return JSON.parse(c.text);
}
const ids = (v: unknown) => (v as { templates: { id: string }[] }).templates.map((t) => t.id);

describe('template resources', () => {
  it('registers the bare list as a resource and the filter and item as templates', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('genplat://templates');
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['genplat://templates{?category}', 'genplat://templates/{id}']),
    );
  });

  it('genplat://templates lists every template compactly', async () => {
    const v = await readJson('genplat://templates');
    expect(ids(v).sort()).toEqual(h.sim.data.templates.map((t) => t.id).sort());
    expect(JSON.stringify(v)).not.toMatch(/thumbnail|_sim/);
  });

  it('genplat://templates?category=… filters', async () => {
    const v = await readJson('genplat://templates?category=social');
    const expected = h.sim.data.templates.filter((t) => t.category.includes('social')).map((t) => t.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(v)).toEqual(expected);
  });

  it('genplat://templates/{id} reads one template with its fields', async () => {
    const t = h.sim.data.templates.find((x) => x.title === 'Testimonial story')!;
    expect(await readJson(`genplat://templates/${t.id}`)).toEqual({
      id: t.id,
      title: t.title,
      credit: t.credit,
      category: t.category,
      fields: {
        headline: { type: 'input', label: 'Headline' },
        story: { type: 'textarea', label: 'Customer story', max: 500 },
        portrait: { type: 'image', label: 'Customer photo' },
      },
    });
  });

  it('an unknown id is an error naming where ids come from', async () => {
    await expect(
      h.client.readResource({ uri: 'genplat://templates/00000000-0000-4000-8000-000000000000' }),
    ).rejects.toThrow(/not found[\s\S]*list_templates/);
  });

  it('completes category values and template ids', async () => {
    const cat = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://templates{?category}' },
      argument: { name: 'category', value: 'e' },
    });
    expect(cat.completion.values.sort()).toEqual(['ecommerce', 'events']);
    const first = h.sim.data.templates[0]!.id;
    const id = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://templates/{id}' },
      argument: { name: 'id', value: first.slice(0, 34) },
    });
    expect(id.completion.values).toContain(first);
    const all = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://templates/{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(all.completion.values.sort()).toEqual(h.sim.data.templates.map((t) => t.id).sort());
  });
});
