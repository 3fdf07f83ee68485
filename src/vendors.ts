/**
 * Resolves the spec's `<vendorX>` placeholders (routes, model ids, `video_type` values) from config.
 * An unset letter fails only the feature that needs it, with an error naming the variable to set.
 */
import type { VendorLetter, VendorMap } from './config.js';
import { ConfigurationError } from './errors.js';

/** @throws ConfigurationError naming GENPLAT_VENDORS when the letter is unset. */
export function vendorName(vendors: VendorMap, letter: VendorLetter, feature: string): string {
  const name = vendors[letter];
  if (!name) {
    throw new ConfigurationError(
      [
        `${feature} needs the vendor name for <vendor${letter}>, which is not configured. Set GENPLAT_VENDORS=${letter}=<name> (see docs/configuration.md).`,
      ],
      'GENPLAT_VENDORS',
    );
  }
  return name;
}

/** Replaces every `<vendorX>` in a template string, e.g. `product-in-hand/<vendorL>-v2/generate`. */
export function resolveVendors(vendors: VendorMap, template: string, feature: string): string {
  return template.replace(/<vendor([A-M])>/g, (_m, letter: VendorLetter) => vendorName(vendors, letter, feature));
}

/** The opposite direction: which letter a concrete vendor name stands for (first match), if any. */
export function letterOf(vendors: VendorMap, name: string): VendorLetter | undefined {
  for (const [letter, v] of Object.entries(vendors)) if (v === name) return letter as VendorLetter;
  return undefined;
}
