import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import listModels from '../../../tools/catalog/list-models.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

type Row = {
  model: string;
  media: string;
  credits: string;
  schema: boolean;
  strict?: boolean;
  webhook: string;
  tool: string;
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [listModels] as unknown as ToolSpec[] });
});
afterAll(() => h.close());

const rows = async (args: Record<string, unknown> = {}) => {
  const r = await h.call('list_models', args);
  expect(r.isError, text(r)).toBeFalsy();
  return structured(r).models as Row[];
};

describe('list_models', () => {
  it('is a read tool with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'list_models')!;
    expect(t.annotations).toMatchObject({ readOnlyHint: true });
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toContain('run_model');
  });

  it('joins the live catalog with our knowledge of each model', async () => {
    const all = await rows();
    const v = h.sim.vendors;
    expect(all.find((m) => m.model === `${v.G}-image-2.5-flare-edit`)).toMatchObject({
      media: 'image',
      schema: true,
      strict: true,
      webhook: 'no',
      tool: 'run_model',
    });
    expect(all.find((m) => m.model === `${v.H}-omni-flash-1-1-i2v`)).toMatchObject({ webhook: 'yes', strict: false });
    expect(all.find((m) => m.model === 'flux-2-pro')).toMatchObject({ schema: false, webhook: 'unstated' });
    expect(all.find((m) => m.model === `${v.D}-imagine-image-edit`)?.credits).toMatch(/10 credits/);
  });

  it('includes the dedicated family entries, marked for create_family_video', async () => {
    const family = (await rows()).filter((m) => m.tool === 'create_family_video').map((m) => m.model);
    const c = h.sim.vendors.C;
    expect(family).toEqual([`${c}-2.5`, `${c}-2.0`, `${c}-2.0-fast`]);
  });

  it('filters by media', async () => {
    const images = await rows({ media: 'image' });
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((m) => m.media === 'image')).toBe(true);
    const videos = await rows({ media: 'video' });
    expect(videos.every((m) => m.media === 'video')).toBe(true);
    expect(videos.some((m) => m.tool === 'create_family_video')).toBe(true);
  });

  it('without vendor C, omits the family and says how to enable it', async () => {
    const { C: _c, ...vendors } = h.sim.vendors;
    const q = await startHarness({ sim: h.sim, tools: [listModels] as unknown as ToolSpec[], config: { vendors } });
    try {
      const s = structured(await q.call('list_models', {}));
      expect((s.models as Row[]).some((m) => m.tool === 'create_family_video')).toBe(false);
      expect(s.note).toMatch(/GENPLAT_VENDORS/);
    } finally {
      await q.close();
    }
  });
});
