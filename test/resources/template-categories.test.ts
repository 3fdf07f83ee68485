import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('genplat://template-categories', () => {
  it('is listed and reads value and label of every category, "all" included', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('genplat://template-categories');
    const r = await h.client.readResource({ uri: 'genplat://template-categories' });
    const v = JSON.parse((r.contents[0] as { text: string }).text) as { categories: { value: string }[] };
    expect(v.categories).toEqual(h.sim.data.categories.map((c) => ({ value: c.value, label: c.label })));
    expect(v.categories.map((c) => c.value)).toContain('all');
  });
});
