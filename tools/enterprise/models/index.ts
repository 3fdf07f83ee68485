/**
 * The model shapes whose params the spec shows, and the matcher from a live catalog id to one of them.
 * Shapes are matched by their vendor-independent suffix (design.md section 3: "they need no vendor config");
 * a configured vendor name only sharpens the match for suffixes other families could share.
 */
import type { VendorMap } from '../../../src/config.js';
import { aV26Edit } from './a-v2-6-edit.js';
import { c15Pro } from './c-1-5-pro.js';
import { c20I2v } from './c-2-0-i2v.js';
import { imagineImageEdit } from './d-imagine-image-edit.js';
import { imagineVideoR2v } from './d-imagine-video-1-5-r2v.js';
import { dVideoT2v } from './d-video-t2v.js';
import { eH3MaxVideo } from './e-h3-max-3d-to-video.js';
import { flareEdit } from './g-image-2-5-flare-edit.js';
import { sunburstEdit } from './g-image-2-5-sunburst-edit.js';
import { omniFlashI2v } from './h-omni-flash-1-1-i2v.js';
import { iEdit } from './i-edit.js';
import { broll } from './j-broll.js';
import { kV3Edit } from './k-v3-edit.js';
import type { ModelSpec } from './spec.js';

// Re-exported from a module without the model files, which the start-up path imports directly.
export { FAMILY_SUFFIXES, familyIds, looksLikeFamilyId } from './family.js';
export type { ModelPrice, ModelSpec } from './spec.js';

export const MODEL_SPECS: readonly ModelSpec[] = [
  flareEdit,
  sunburstEdit,
  omniFlashI2v,
  iEdit,
  imagineImageEdit,
  broll,
  c15Pro,
  imagineVideoR2v,
  kV3Edit,
  c20I2v,
  aV26Edit,
  eH3MaxVideo,
  dVideoT2v,
];

/** Vendor I's default when unset: the assumed name from config.ts, so `<vendorI>-edit` still resolves. */
const DEFAULT_VENDOR_I = 'nano-banana';

function vendorOf(spec: ModelSpec, vendors: VendorMap): string | undefined {
  return vendors[spec.letter] ?? (spec.letter === 'I' ? DEFAULT_VENDOR_I : undefined);
}

function matchesBySuffix(spec: ModelSpec, modelId: string): boolean {
  if (spec.matchBy === 'exact' || !modelId.endsWith(spec.suffix)) return false;
  const vendor = modelId.slice(0, -spec.suffix.length);
  if (vendor.length === 0) return false;
  return spec.matchBy === 'suffix' || !vendor.includes('-');
}

/**
 * The spec shape for a catalog id, or undefined (the model is then passed through with a warning).
 * Pass 1: `<configured vendor><suffix>` exactly, so a configured name always wins. Pass 2: suffix rules.
 */
export function matchModel(modelId: string, vendors: VendorMap): ModelSpec | undefined {
  const exact = MODEL_SPECS.find((s) => {
    const v = vendorOf(s, vendors);
    return v !== undefined && modelId === `${v}${s.suffix}`;
  });
  return exact ?? MODEL_SPECS.find((s) => matchesBySuffix(s, modelId));
}
