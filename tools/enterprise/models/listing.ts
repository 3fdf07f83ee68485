/**
 * What list_models and the genplat://models resources show: the live catalog joined with what we know about
 * each model (webhook support, strictness, local schema), plus the dedicated family, which the catalog omits.
 */
import { z } from 'zod';
import type { CatalogEntry } from '../../../src/client/schemas.js';
import type { VendorMap } from '../../../src/config.js';
import { familyIds } from './family.js';
import { matchModel } from './index.js';
import { modelPrice } from './price.js';
import { type ModelRow, ModelRowSchema } from './row.js';
import type { ModelSpec } from './spec.js';

export { type ModelRow, ModelRowSchema };

export function webhookSupport(spec: ModelSpec | undefined): ModelRow['webhook'] {
  if (!spec?.webhookStated) return 'unstated';
  return spec.webhook ? 'yes' : 'no';
}

/** One catalog entry with our knowledge about it. */
export function catalogRow(entry: CatalogEntry, vendors: VendorMap): ModelRow {
  const spec = matchModel(entry.model, vendors);
  return {
    model: entry.model,
    media: entry.media,
    credits: entry.credits,
    schema: spec !== undefined,
    ...(spec ? { strict: spec.strict } : {}),
    webhook: webhookSupport(spec),
    tool: 'run_model',
  };
}

/** The dedicated family rows, or none when vendor C is not configured (the tool then explains). */
export function familyRows(vendors: VendorMap): ModelRow[] {
  if (!vendors.C) return [];
  return familyIds(vendors.C).map((model) => ({
    model,
    media: 'video',
    credits: 'reported as estimated_credits after submission',
    schema: true,
    strict: false,
    // Spec: "The dedicated <vendorC> family does not forward webhook_url."
    webhook: 'no',
    tool: 'create_family_video',
  }));
}

export function modelRows(entries: CatalogEntry[], vendors: VendorMap, media?: 'image' | 'video'): ModelRow[] {
  const rows = [...entries.map((e) => catalogRow(e, vendors)), ...familyRows(vendors)];
  return media ? rows.filter((r) => r.media === media) : rows;
}

/** The full description of one catalog model (genplat://models/{model}). */
export function modelDetail(entry: CatalogEntry, vendors: VendorMap): Record<string, unknown> {
  const spec = matchModel(entry.model, vendors);
  const base = {
    model: entry.model,
    media: entry.media,
    catalog_credits: entry.credits,
    webhook: webhookSupport(spec),
    tool: 'run_model',
    call: 'run_model {model, params: {…}}: model inputs go inside params',
  };
  if (!spec) {
    return {
      ...base,
      schema: null,
      notes:
        'The spec does not publish this model’s params: run_model passes them through unchecked (it must not be empty).',
      estimate_without_params: modelPrice(undefined, {}, entry.credits),
    };
  }
  return {
    ...base,
    shape: spec.shape,
    strict: spec.strict,
    notes: spec.notes,
    estimate_without_params: modelPrice(spec, {}, entry.credits),
    params_schema: paramsJsonSchema(spec),
  };
}

/** JSON Schema of a model's params, as the agent writes them (input side: optional defaults stay optional). */
export function paramsJsonSchema(spec: ModelSpec): Record<string, unknown> {
  const schema = z.toJSONSchema(spec.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
