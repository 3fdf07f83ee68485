/**
 * How many outputs a request asks for, as the simulated platform reads it. The spec names no count field for
 * most catalog models ("each image consumes credits", "cost depends on … output count"), so the sandbox
 * reads every usual spelling and makes their product: the dearest plausible platform, which a quote must
 * still cover. A value that is not a whole number ≥ 1 (0, -1, "0", 1.5) is read as the default 1, as the
 * issue-18 review found the platform billing such calls. Independent of the server's own list
 * (tools/enterprise/models/counts.ts): this is the platform's reading.
 */
import type { Body } from '../check.js';

export const SIM_COUNT_FIELDS = [
  'num_images',
  'n',
  'num_outputs',
  'batch_size',
  'number_of_images',
  'num_videos',
] as const;

function whole(v: unknown): number {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : 1;
}

export function requestedOutputs(params: Body, fields: readonly string[] = SIM_COUNT_FIELDS): number {
  let n = 1;
  for (const f of fields) if (params[f] !== undefined && params[f] !== null) n *= whole(params[f]);
  return n;
}

/** Every media item a request sends in a list (`image_urls`, `reference_image_urls`…). */
export function listedMedia(params: Body): number {
  let n = 0;
  for (const [k, v] of Object.entries(params)) if (/url/i.test(k) && Array.isArray(v)) n += v.length;
  return n;
}
