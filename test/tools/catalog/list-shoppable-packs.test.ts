import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import listShoppablePacks from '../../../tools/catalog/list-shoppable-packs.js';
import { type Harness, startHarness, structured } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [listShoppablePacks] as unknown as ToolSpec[] });
});
afterAll(() => h.close());

describe('list_shoppable_packs', () => {
  it('is a read tool', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'list_shoppable_packs')!;
    expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    expect(t.description!.length).toBeLessThan(300);
  });

  it('lists each category with formats, durations, aspect ratios, credits and defaults', async () => {
    const r = await h.call('list_shoppable_packs', {});
    expect(r.isError).toBeFalsy();
    const packs = structured(r).packs as Record<string, unknown>[];
    expect(packs).toEqual(
      h.sim.data.packs.map((p) => ({
        category: p.value,
        label: p.label,
        formats: p.formats,
        durations: p.durations,
        aspect_ratios: p.aspect_ratios,
        credits: p.credits,
        defaults: p.defaults,
      })),
    );
  });
});
