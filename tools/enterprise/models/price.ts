/**
 * One run_model call's price: the catalog text read by the price grammar (src/paid/pricing/price-*.ts) for what the
 * call uses, raised to the spec's own figure where the spec states one (both are published: the quote must
 * cover either). Bounded only when both readings are proven; see docs/pricing.md.
 */
import { boundPrice } from '../../../src/paid/pricing/price-bound.js';
import type { ModelPrice, ModelSpec } from './spec.js';
import { usageOf } from './usage.js';

/** Params the spec's schema declares (`shape` of its zod object; a strict schema has no others). */
function knownParams(spec: ModelSpec): ReadonlySet<string> {
  const shape = (spec.params as unknown as { shape?: Record<string, unknown> }).shape;
  return new Set(Object.keys(shape ?? {}));
}

export function modelPrice(
  spec: ModelSpec | undefined,
  params: Record<string, unknown>,
  catalogCredits: string | undefined,
): ModelPrice {
  const u = usageOf(params, spec?.pricing, spec ? knownParams(spec) : undefined);
  if (!u.ok) return { bounded: false, basis: u.reason };
  const usage = u.usage;
  const fixed = spec?.pricing.fixed?.(params);
  const catalog = boundPrice(catalogCredits, usage);
  if (!fixed) {
    if (!catalog.bounded) return { bounded: false, basis: `catalog: ${catalog.reason}` };
    return { bounded: true, credits: catalog.credits, basis: `catalog: "${catalogCredits}" → ${catalog.detail}` };
  }
  if (usage.outputs === undefined)
    return { bounded: false, basis: 'the number of outputs is not known before the job' };
  const spec1 = fixed.credits * usage.outputs;
  const specBasis = `spec: ${fixed.basis}${usage.outputs === 1 ? '' : ` × ${usage.outputs} outputs`}`;
  // A catalog text that does not parse leaves the spec's figure: the spec states this price outright.
  if (catalog.bounded && catalog.credits > spec1) {
    return {
      bounded: true,
      credits: catalog.credits,
      basis: `catalog: "${catalogCredits}" → ${catalog.detail} (above ${specBasis})`,
    };
  }
  return { bounded: true, credits: spec1, basis: specBasis };
}
