/**
 * The README's "every endpoint, and the tool that reaches it" rows (design.md section 2). Endpoints that
 * start or read jobs come from the job-kind registry (src/jobs/kinds/); only the catalogue and quote
 * endpoints, which no job kind owns, are listed here. Pure, so the registry meta-test can import it.
 */

import type { EndpointRow } from '../src/jobs/kinds/define.js';
import { endpointRows, KINDS } from '../src/jobs/kinds/index.js';

/** Endpoints that start no job: catalogues and the upscale quote. */
const CATALOGUE: EndpointRow[] = [
  { endpoint: 'GET /video/avatars', tool: 'list_avatars' },
  { endpoint: 'GET /video/voices', tool: 'list_voices' },
  { endpoint: 'GET /shopable/packs', tool: 'list_shoppable_packs' },
  { endpoint: 'GET /content-library/templates', tool: 'list_templates' },
  { endpoint: 'GET /content-library/categories', tool: 'list_template_categories' },
  { endpoint: 'GET /enterprise/models', tool: 'list_models' },
  { endpoint: 'POST /upscale/quote', tool: 'quote_upscale' },
];

/** The order of the spec's API areas in the table; an area not listed (a new kind's) goes last. */
const AREAS = [
  'video',
  'custom-avatar',
  'product-in-hand',
  'shopable',
  'content-library',
  'gestures',
  'enterprise',
  '<vendorC>',
  'upscale',
];

/** `GET /video/status` → `video`. */
export const areaOf = (endpoint: string): string => endpoint.split(' ')[1]!.split('/')[1]!;

/**
 * Every row, grouped by area; within an area: catalogue rows, then the kinds' submits, then their status
 * reads (each in registry order). Stable sort keeps the listing order inside each group.
 */
export function endpointTable(): EndpointRow[] {
  const rank = (area: string) => {
    const i = AREAS.indexOf(area);
    return i < 0 ? AREAS.length : i;
  };
  const rows = [
    ...CATALOGUE.map((row) => ({ row, group: 0 })),
    ...KINDS.flatMap((k) => endpointRows(k).map((row) => ({ row, group: row.endpoint.startsWith('GET ') ? 2 : 1 }))),
  ];
  return rows
    .map((r, i) => ({ ...r, i }))
    .sort(
      (a, b) =>
        rank(areaOf(a.row.endpoint)) - rank(areaOf(b.row.endpoint)) ||
        (rank(areaOf(a.row.endpoint)) === AREAS.length
          ? areaOf(a.row.endpoint).localeCompare(areaOf(b.row.endpoint))
          : 0) ||
        a.group - b.group ||
        a.i - b.i,
    )
    .map((r) => r.row);
}
