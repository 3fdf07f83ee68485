/**
 * The dedicated <vendorC> family ids. Kept apart from the model registry (index.ts re-exports them) so that
 * run_model, create_family_video and the model resources can import them at start-up without loading the
 * 13 model files, which only run_model's checks and the model resources need.
 */
import type { VendorMap } from '../../../src/config.js';

/**
 * Dedicated <vendorC> family ids (not in the catalog; POST /<vendorC>/generate). The spec spells only
 * `<vendorC>-2.5`; "-2.0" and "-2.0-fast" are our reading of "<vendorC> 2.0" and "<vendorC> 2.0 Fast".
 */
export const FAMILY_SUFFIXES = ['-2.5', '-2.0', '-2.0-fast'] as const;

export function familyIds(vendorC: string): string[] {
  return FAMILY_SUFFIXES.map((s) => `${vendorC}${s}`);
}

/** True for an id shaped like a dedicated-family id, whatever the vendor name (so run_model can redirect). */
export function looksLikeFamilyId(modelId: string, vendors: VendorMap): boolean {
  const c = vendors.C;
  if (c && familyIds(c).includes(modelId)) return true;
  return /^[a-z0-9]+-2\.(5|0|0-fast)$/i.test(modelId);
}
