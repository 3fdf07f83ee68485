/**
 * Sandbox catalog models whose `credits` texts use wordings the price grammar does not accept (issue 18:
 * the hostile review's list). Each is charged what its text plainly says, so the quote-bounds property test
 * (test/invariants/quote-properties.test.ts) proves the server quotes them unbounded, or at least at that
 * charge — never the low figure the old heuristic reader guessed. Sandbox inventions, like every catalog
 * text beyond the spec's own prices; docs/pricing.md lists them.
 */
import { type Body, optionalString } from '../check.js';
import { requestedOutputs } from './outputs.js';
import { checkShape, type ModelQuote, optionalInteger, type RuleEnv, requirePrompt } from './rules.js';

export interface WordingModel {
  model: string;
  media: 'image' | 'video';
  credits: string;
  validate(params: Body, env: RuleEnv, model: string): ModelQuote;
}

const MEGAPIXEL = 1024 * 1024;

/** An image model: `perImage(params)` per output asked for. */
function image(perImage: (p: Body) => number) {
  return (params: Body, _env: RuleEnv, model: string): ModelQuote => {
    checkShape(params, 'any', model);
    requirePrompt(params);
    const n = requestedOutputs(params);
    return { credits: Math.ceil(perImage(params) * n), outputCount: n };
  };
}

/** A video model priced by its duration (integer seconds ≥ 1, default `def`). */
function video(def: number, price: (seconds: number, p: Body) => number) {
  return (params: Body, _env: RuleEnv, model: string): ModelQuote => {
    checkShape(params, 'any', model);
    requirePrompt(params);
    const seconds = optionalInteger(params, 'duration', { min: 1 }) ?? def;
    const n = requestedOutputs(params);
    return { credits: Math.ceil(price(seconds, params) * n), outputCount: n };
  };
}

/** The resolution asked for, lower case ('' when none). */
const res = (p: Body) => (optionalString(p, 'resolution') ?? '').toLowerCase();

export const WORDING_MODELS: readonly WordingModel[] = [
  {
    model: 'tempo-1-t2v',
    media: 'video',
    credits: '12 credits per 5 seconds',
    validate: video(5, (s) => 12 * Math.ceil(s / 5)),
  },
  {
    model: 'tempo-1-long',
    media: 'video',
    credits: '30 credits per minute of video',
    validate: video(10, (s) => 30 * Math.ceil(s / 60)),
  },
  {
    model: 'tempo-1-frames',
    media: 'video',
    credits: '2 credits per frame',
    validate: video(5, (s, p) => 2 * s * (optionalInteger(p, 'fps', { min: 1, max: 60 }) ?? 24)),
  },
  { model: 'lumen-1', media: 'image', credits: '10 credits per generated image', validate: image(() => 10) },
  {
    model: 'lumen-1-hd',
    media: 'image',
    credits: '20 credits per image; 4K images cost double',
    validate: image((p) => (res(p) === '4k' ? 40 : 20)),
  },
  {
    model: 'lumen-1-tiers',
    media: 'image',
    credits: '15 credits per image (2K: double, 4K: quadruple)',
    validate: image((p) => 15 * ({ '2k': 2, '4k': 4 }[res(p)] ?? 1)),
  },
  {
    model: 'lumen-1-plus',
    media: 'image',
    credits: '8 credits per image, +50% for 4K',
    validate: image((p) => (res(p) === '4k' ? 12 : 8)),
  },
  {
    model: 'lumen-1-x2',
    media: 'image',
    credits: '10 credits per image, 1080p x2',
    validate: image((p) => (res(p) === '1080p' ? 20 : 10)),
  },
  {
    model: 'lumen-1-mp',
    media: 'image',
    credits: '3 credits per megapixel',
    validate: image((p) => {
      const m = /^(\d+)x(\d+)$/.exec(optionalString(p, 'size') ?? '1024x1024');
      const [w, h] = m ? [Number(m[1]), Number(m[2])] : [1024, 1024];
      return 3 * Math.max(1, Math.ceil((w * h) / MEGAPIXEL));
    }),
  },
  {
    model: 'lumen-1-batch',
    media: 'image',
    credits: '10 credits per image, up to 4 images',
    validate: image(() => 10),
  },
];

/**
 * Sandbox models priced in bare figures, as the spec writes enterprise prices ("0.5 for 10 seconds and 1.0 for
 * 15 seconds"): API units, charged ×100 (issue 27). A server reading them as displayed credits under-quotes
 * each a hundredfold, which the property test (test/invariants/quote-properties.test.ts) then catches.
 */
export const BARE_MODELS: readonly WordingModel[] = [
  { model: 'bare-1-gen', media: 'image', credits: '0.5 per generation', validate: image(() => 50) },
  { model: 'bare-1-flat', media: 'image', credits: '0.1', validate: image(() => 10) },
  { model: 'bare-1-image', media: 'image', credits: '0.06 per image', validate: image(() => 6) },
  {
    model: 'bare-1-t2v',
    media: 'video',
    credits: '0.5 for 10 s, 1.0 for 15 s',
    validate: video(10, (s) => (s <= 10 ? 50 : 100)),
  },
  {
    model: 'bare-1-tiers',
    media: 'image',
    credits: '0.15 per image at 1K (2K 0.2, 4K 0.3)',
    validate: image((p) => ({ '2k': 20, '4k': 30 })[res(p)] ?? 15),
  },
  {
    model: 'api-1-tiers',
    media: 'image',
    credits: '0.15 API units per image at 1K (2K 0.2, 4K 0.3)',
    validate: image((p) => ({ '2k': 20, '4k': 30 })[res(p)] ?? 15),
  },
  {
    model: 'api-1-t2v',
    media: 'video',
    credits: '0.5 API credit units for 10 s, 1 for 15 s',
    validate: video(10, (s) => (s <= 10 ? 50 : 100)),
  },
  {
    model: 'bare-1-edit',
    media: 'image',
    credits: '6 credits per image plus 0.01 per reference image',
    validate: (params: Body, env: RuleEnv, model: string) => {
      const q = image(() => 6)(params, env, model);
      return { ...q, credits: q.credits + referenceMedia(params) };
    },
  },
];

/** Every media item a call carries, under any key (as the server counts them for a per-reference price). */
function referenceMedia(params: Body): number {
  let n = 0;
  const visit = (v: unknown) => {
    if (typeof v === 'string') n += /^(https?:|data:|upload:)/i.test(v.trim()) ? 1 : 0;
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(params);
  return n;
}
