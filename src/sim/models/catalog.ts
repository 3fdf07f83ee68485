/**
 * The simulator's seeded enterprise catalog: every model the spec names (vendor letters resolved from the
 * sandbox VendorMap), plus text-to-image models and extra edit variants the spec mentions without params.
 *
 * `credits` texts are free text, as on the platform (spec: "credit description"), and deliberately varied:
 * per-unit prices with labelled tiers, per second, per reference image, ranges, "up to", "from", and one
 * with no usable bound (flare-edit), plus the issue-18 review's wordings the price grammar refuses
 * (`wordings.ts`). Counts multiply where a text is per image (`outputs.ts`). Spec prices are used where given (imagine-image-edit 10, broll 50,
 * 1-5-pro 50, video-t2v 50/100); the rest are sandbox inventions. What the simulator charges for each, and
 * why every text bounds that charge (or says it cannot), is the table in docs/pricing.md, which
 * test/invariants/quote-bounds.test.ts checks. Dedicated-family ids (<vendorC>-2.5 …) are deliberately
 * absent, as the spec says.
 */
import type { VendorLetter, VendorMap } from '../../config.js';
import type { Body } from '../check.js';
import {
  genericEdit,
  textToImage,
  validateAV26Edit,
  validateFlareEdit,
  validateIEdit,
  validateImagineImageEdit,
  validateKV3Edit,
  validateSunburstEdit,
} from './image-edit.js';
import type { ModelQuote, RuleEnv } from './rules.js';
import {
  validateC15Pro,
  validateC20I2v,
  validateDT2v,
  validateE3dToVideo,
  validateHI2v,
  validateJBroll,
  validateR2v,
} from './video.js';
import { BARE_MODELS, WORDING_MODELS } from './wordings.js';

export interface CatalogModel {
  model: string;
  media: 'image' | 'video';
  credits: string;
  /** Rejects a top-level webhook_url. Models the spec does not mark either way accept one. */
  pollingOnly: boolean;
  /**
   * Status reports string states (processing/completed/failed) instead of 0/1/2 — "video status can also be
   * a string". The sandbox picks <vendorC>-2-0-i2v and <vendorE>-h3-max-3d-to-video for this.
   */
  stringStatus: boolean;
  validate(params: Body, env: RuleEnv): ModelQuote;
}

/** A vendor letter's name; the sandbox fills every letter, the fallback only guards a partial map. */
export function vendor(v: VendorMap, letter: VendorLetter): string {
  return v[letter] ?? `vendor${letter.toLowerCase()}`;
}

type Validator = (params: Body, env: RuleEnv, model: string) => ModelQuote;

function entry(
  model: string,
  media: 'image' | 'video',
  credits: string,
  validate: Validator,
  flags: { pollingOnly?: boolean; stringStatus?: boolean } = {},
): CatalogModel {
  return {
    model,
    media,
    credits,
    pollingOnly: flags.pollingOnly ?? false,
    stringStatus: flags.stringStatus ?? false,
    validate: (params, env) => validate(params, env, model),
  };
}

export function buildCatalog(v: VendorMap): CatalogModel[] {
  const [A, C, D, E, G, H, I, J, K] = (['A', 'C', 'D', 'E', 'G', 'H', 'I', 'J', 'K'] as const).map((l) => vendor(v, l));
  return [
    // Models with parameter tables in the spec.
    entry(
      `${G}-image-2.5-flare-edit`,
      'image',
      '12 credits per image at 1024x1024 auto quality; scales with size and quality',
      validateFlareEdit,
      { pollingOnly: true },
    ),
    entry(
      `${G}-image-2.5-sunburst-edit`,
      'image',
      '2-64 credits per image depending on size and quality',
      validateSunburstEdit,
    ),
    entry(`${H}-omni-flash-1-1-i2v`, 'video', '8 credits per second at 720p (360p 4, 1080p 12, 4k 24)', validateHI2v),
    entry(`${I}-edit`, 'image', '15 credits per image at 1K (2K 20, 4K 30)', validateIEdit, { pollingOnly: true }),
    entry(`${D}-imagine-image-edit`, 'image', '10 credits per generation', validateImagineImageEdit),
    entry(`${J}-broll`, 'video', '50 credits per generation', validateJBroll, { pollingOnly: true }),
    entry(`${C}-1-5-pro`, 'video', '50 credits per generation', validateC15Pro, { pollingOnly: true }),
    entry(
      `${D}-imagine-video-1-5-r2v`,
      'video',
      '6 credits per second at 720p (480p 4, 1080p 10) plus 2 credits per reference image',
      validateR2v,
    ),
    entry(`${K}-v3-edit`, 'image', '20 credits per image', validateKV3Edit),
    entry(`${C}-2-0-i2v`, 'video', '6 credits per second at 720p (480p 3, 1080p 12)', validateC20I2v, {
      stringStatus: true,
    }),
    entry(`${A}-v2.6-edit`, 'image', '10 credits per image', validateAV26Edit),
    entry(`${E}-h3-max-3d-to-video`, 'video', '80 credits per generation at 720p (1080p 160)', validateE3dToVideo, {
      stringStatus: true,
    }),
    // The spec's own wording: bare figures, API units (0.5 = 50 credits, 1.0 = 100).
    entry(`${D}-video-t2v`, 'video', '0.5 for 10 seconds and 1.0 for 15 seconds', validateDT2v),
    // "Other catalog models": text-to-image families and edit variants whose params the spec does not show.
    entry('flux-2-pro', 'image', '10-12 credits per image', textToImage(12)),
    entry('imagen-4', 'image', 'up to 8 credits per image', textToImage(8)),
    entry('seedream-4', 'image', '6 credits per image', textToImage(6)),
    entry(`${K}-v3`, 'image', '10 credits per image', textToImage(10)),
    entry('seedream-4-edit', 'image', '6 credits per image plus 1 credit per reference image', genericEdit(6, 10, 1)),
    entry('flux-2-pro-edit', 'image', 'from 15 credits per image', genericEdit(15, 4, 5)),
    // Wordings the price grammar does not accept (issue 18), charged what each text plainly says.
    ...WORDING_MODELS.map((m) => entry(m.model, m.media, m.credits, m.validate)),
    // Bare figures, API units (issue 27).
    ...BARE_MODELS.map((m) => entry(m.model, m.media, m.credits, m.validate)),
  ];
}

export function findModel(v: VendorMap, id: string): CatalogModel | undefined {
  return buildCatalog(v).find((m) => m.model === id);
}
