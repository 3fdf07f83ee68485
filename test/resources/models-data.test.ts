import { describe, expect, it } from 'vitest';
import { modelIds, readModel, readModels } from '../../resources/models.js';
import type { Catalog } from '../../src/catalog.js';
import type { CatalogEntry } from '../../src/client/schemas.js';
import { ASSUMED_VENDORS, type Config } from '../../src/config.js';
import { UserInputError } from '../../src/errors.js';

const ENTRIES: CatalogEntry[] = [
  { model: 'gpt-image-2.5-flare-edit', media: 'image', credits: '12 credits per image' },
  { model: 'grok-video-t2v', media: 'video', credits: '50 credits for 10 s, 100 credits for 15 s' },
  { model: 'flux-2-pro', media: 'image', credits: '12 credits per image' },
];

function deps(vendors = ASSUMED_VENDORS) {
  const catalog = { models: async () => ENTRIES } as unknown as Catalog;
  return { catalog, config: { vendors } as Config };
}

describe('genplat://models data', () => {
  it('lists catalog entries with our knowledge, plus the family', async () => {
    const { models } = (await readModels(deps())) as { models: Record<string, unknown>[] };
    expect(models.find((m) => m.model === 'gpt-image-2.5-flare-edit')).toMatchObject({
      schema: true,
      strict: true,
      webhook: 'no',
    });
    expect(models.find((m) => m.model === 'flux-2-pro')).toMatchObject({ schema: false, webhook: 'unstated' });
    expect(models.filter((m) => m.tool === 'create_family_video').map((m) => m.model)).toEqual([
      'seedance-2.5',
      'seedance-2.0',
      'seedance-2.0-fast',
    ]);
  });

  it('omits the family when vendor C is unset', async () => {
    const { models } = (await readModels(deps({}))) as { models: Record<string, unknown>[] };
    expect(models.some((m) => m.tool === 'create_family_video')).toBe(false);
  });

  it('one model: JSON Schema of params with rules, price and flags', async () => {
    const d = await readModel(deps(), 'gpt-image-2.5-flare-edit');
    expect(d).toMatchObject({ shape: '<vendorG>-image-2.5-flare-edit', strict: true, webhook: 'no' });
    const schema = d.params_schema as { properties: Record<string, { enum?: string[]; description?: string }> };
    expect(schema.properties.quality?.enum).toContain('xhigh');
    expect(schema.properties.size?.description).toMatch(/multiples of 16/);
    expect(d.estimate_without_params).toMatchObject({ credits: 12 });
  });

  it('a model without a schema says params pass through', async () => {
    const d = await readModel(deps(), 'flux-2-pro');
    expect(d.schema).toBeNull();
    expect(String(d.notes)).toMatch(/unchecked/);
  });

  it('a family id points at create_family_video; an unknown id is a clear error', async () => {
    expect(await readModel(deps(), 'seedance-2.5')).toMatchObject({ tool: 'create_family_video' });
    await expect(readModel(deps(), 'nope-model')).rejects.toThrow(UserInputError);
    await expect(readModel(deps(), 'nope-model')).rejects.toThrow(/not in the catalog/);
  });

  it('offers catalog and family ids for completion', async () => {
    expect(await modelIds(deps())).toEqual([
      'gpt-image-2.5-flare-edit',
      'grok-video-t2v',
      'flux-2-pro',
      'seedance-2.5',
      'seedance-2.0',
      'seedance-2.0-fast',
    ]);
    expect(await modelIds(deps({}))).toHaveLength(3);
  });
});
