import { describe, expect, it } from 'vitest';
import { ASSUMED_VENDORS, sandboxVendors } from '../../../src/config.js';
import { familyIds, looksLikeFamilyId, MODEL_SPECS, matchModel } from '../../../tools/enterprise/models/index.js';

const shapeOf = (id: string, vendors = ASSUMED_VENDORS) => matchModel(id, vendors)?.shape;

describe('matchModel', () => {
  it('matches every spec shape with the default vendor names', () => {
    for (const spec of MODEL_SPECS) {
      const id = spec.shape.replace(
        /<vendor([A-M])>/,
        (_m, l: keyof typeof ASSUMED_VENDORS) => ASSUMED_VENDORS[l] ?? 'acme',
      );
      expect(shapeOf(id), id).toBe(spec.shape);
    }
  });

  it('matches by vendor-independent suffix, so unknown vendor names need no config', () => {
    expect(shapeOf('acme-image-2.5-flare-edit', {})).toBe('<vendorG>-image-2.5-flare-edit');
    expect(shapeOf('vendorh-omni-flash-1-1-i2v', {})).toBe('<vendorH>-omni-flash-1-1-i2v');
    expect(shapeOf('some-brand-1-5-pro', {})).toBe('<vendorC>-1-5-pro');
    expect(shapeOf('x-v2.6-edit', {})).toBe('<vendorA>-v2.6-edit');
    expect(shapeOf('x-broll', {})).toBe('<vendorJ>-broll');
  });

  it('matches the sandbox names (unknown letters filled with placeholders)', () => {
    const v = sandboxVendors({});
    expect(shapeOf(`${v.H}-omni-flash-1-1-i2v`, v)).toBe('<vendorH>-omni-flash-1-1-i2v');
    expect(shapeOf(`${v.E}-h3-max-3d-to-video`, v)).toBe('<vendorE>-h3-max-3d-to-video');
  });

  it('needs a non-empty vendor part', () => {
    expect(shapeOf('-broll')).toBeUndefined();
    expect(shapeOf('image-2.5-flare-edit')).toBeUndefined();
    expect(shapeOf('broll')).toBeUndefined();
  });

  it('matches the bare "-edit" shape only for the configured vendor I (default nano-banana)', () => {
    expect(shapeOf('nano-banana-edit')).toBe('<vendorI>-edit');
    expect(shapeOf('nano-banana-edit', {})).toBe('<vendorI>-edit'); // default when I is unset
    expect(shapeOf('flux-2-pro-edit')).toBeUndefined();
    expect(shapeOf('seedream-4-edit')).toBeUndefined();
    expect(shapeOf('banana-edit', { I: 'banana' })).toBe('<vendorI>-edit');
    expect(shapeOf('nano-banana-edit', { I: 'banana' })).toBeUndefined();
  });

  it('honours custom vendor names', () => {
    const v = { D: 'xai', C: 'dance', G: 'oai' };
    expect(shapeOf('xai-imagine-image-edit', v)).toBe('<vendorD>-imagine-image-edit');
    expect(shapeOf('dance-2-0-i2v', v)).toBe('<vendorC>-2-0-i2v');
    expect(shapeOf('oai-image-2.5-sunburst-edit', v)).toBe('<vendorG>-image-2.5-sunburst-edit');
  });

  it('matches the short "-video-t2v" shape by configured vendor D or a one-word vendor part', () => {
    expect(shapeOf('grok-video-t2v')).toBe('<vendorD>-video-t2v');
    expect(shapeOf('other-video-t2v')).toBe('<vendorD>-video-t2v');
    expect(shapeOf('grok-imagine-video-t2v')).toBeUndefined();
    expect(shapeOf('my-co-video-t2v', { D: 'my-co' })).toBe('<vendorD>-video-t2v');
  });

  it('leaves text-to-image and unknown models unmatched', () => {
    for (const id of ['flux-2-pro', 'imagen-4', 'seedream-4', 'ideogram-v3']) expect(shapeOf(id)).toBeUndefined();
  });

  it('is exact on the suffix (no partial or case-folded matches)', () => {
    expect(shapeOf('gpt-image-2.5-flare-edit-v2')).toBeUndefined();
    expect(shapeOf('gpt-image-2x5-flare-edit')).toBeUndefined();
    expect(shapeOf('GPT-IMAGE-2.5-FLARE-EDIT')).toBeUndefined();
  });
});

describe('dedicated family ids', () => {
  it('builds the three ids from vendor C', () => {
    expect(familyIds('seedance')).toEqual(['seedance-2.5', 'seedance-2.0', 'seedance-2.0-fast']);
  });
  it('recognises family-shaped ids with or without the configured name', () => {
    expect(looksLikeFamilyId('seedance-2.5', ASSUMED_VENDORS)).toBe(true);
    expect(looksLikeFamilyId('seedance-2.0-fast', {})).toBe(true);
    expect(looksLikeFamilyId('seedance-2-0-i2v', ASSUMED_VENDORS)).toBe(false);
    expect(looksLikeFamilyId('flux-2-pro', ASSUMED_VENDORS)).toBe(false);
  });
});
