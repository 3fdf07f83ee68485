import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [] });
});
afterAll(() => h.close());

async function readJson(uri: string): Promise<Record<string, unknown>> {
  const r = await h.client.readResource({ uri });
  const first = r.contents[0] as { text: string; mimeType?: string };
  expect(first.mimeType).toBe('application/json');
  return JSON.parse(first.text) as Record<string, unknown>;
}

describe('genplat://models resources', () => {
  it('genplat://models lists the catalog plus the family', async () => {
    const { models } = (await readJson('genplat://models')) as { models: { model: string; tool: string }[] };
    expect(models.some((m) => m.model === 'flux-2-pro')).toBe(true);
    expect(models.some((m) => m.model === `${h.sim.vendors.C}-2.5` && m.tool === 'create_family_video')).toBe(true);
  });

  it('genplat://models/{model} returns the params JSON Schema with rules and price', async () => {
    const id = `${h.sim.vendors.I}-edit`;
    const d = await readJson(`genplat://models/${id}`);
    expect(d).toMatchObject({ model: id, shape: '<vendorI>-edit', strict: true, webhook: 'no' });
    const schema = d.params_schema as {
      type: string;
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { minimum?: number; maximum?: number; enum?: string[]; maxItems?: number }>;
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['prompt', 'image_urls']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.num_images).toMatchObject({ minimum: 1, maximum: 4 });
    expect(schema.properties.image_urls?.maxItems).toBe(2);
    expect(schema.properties.resolution?.enum).toEqual(['1K', '2K', '4K']);
    expect(d.estimate_without_params).toMatchObject({ credits: 15 });
  });

  it('the template is listed (models are not: resources/list reads nothing), completes model ids, and an unknown model is a clear error', async () => {
    h.sim.log.clear();
    const { resources } = await h.client.listResources();
    expect(resources.some((r) => r.uri.startsWith('genplat://models/'))).toBe(false);
    expect(h.sim.log.entries()).toEqual([]);
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('genplat://models/{model}');
    const c = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://models/{model}' },
      argument: { name: 'model', value: 'flux' },
    });
    expect(c.completion.values).toEqual(['flux-2-pro', 'flux-2-pro-edit']);
    await expect(h.client.readResource({ uri: 'genplat://models/no-such-model' })).rejects.toThrow(
      /not in the catalog/,
    );
  });
});
