import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('genplat://shoppable/packs', () => {
  it('is listed and reads the packs in the same form as list_shoppable_packs', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('genplat://shoppable/packs');
    const r = await h.client.readResource({ uri: 'genplat://shoppable/packs' });
    const v = JSON.parse((r.contents[0] as { text: string }).text) as { packs: Record<string, unknown>[] };
    expect(v.packs.map((p) => p.category)).toEqual(h.sim.data.packs.map((p) => p.value));
    const beauty = h.sim.data.packs.find((p) => p.value === 'beauty')!;
    expect(v.packs.find((p) => p.category === 'beauty')).toEqual({
      category: 'beauty',
      label: beauty.label,
      formats: beauty.formats,
      durations: beauty.durations,
      aspect_ratios: beauty.aspect_ratios,
      credits: beauty.credits,
      defaults: beauty.defaults,
    });
  });
});
