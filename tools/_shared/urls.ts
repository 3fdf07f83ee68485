/**
 * Zod fields for URL inputs. The guard's rule becomes a zod issue on the field itself, so the MCP
 * validation error names the field and the rule, and nothing is sent (invariants 4 and 7).
 */
import { z } from 'zod';
import { localRefFormProblem, parseMediaRef } from '../../src/files/media-ref.js';
import {
  MAX_DATA_URI_LENGTH,
  MAX_URL_LENGTH,
  publicMediaUrlProblem,
  webhookUrlFormProblem,
} from '../../src/guards/url.js';

/** What every media field takes (issue 29 item 8), said once here so each field's words stay few. */
export const MEDIA_REF_WORDS = 'URL, local path or upload reference';

/**
 * A media field: a public media URL (spec convention 9), or a local file (path or `upload:<id>`: issue 22),
 * described as `<what>: URL, local path or upload reference`, whose form is checked here and whose disk checks and staging happen in the paid pipeline (src/files/). `allowDataUri` only where the spec allows base64 data URIs
 * (some enterprise models' media fields); then the length bound is the data URI one.
 */
export function publicMediaUrl(what: string, opts: { allowDataUri?: boolean } = {}) {
  const takes = opts.allowDataUri ? 'URL, data URI, local path or upload reference' : MEDIA_REF_WORDS;
  return z
    .string()
    .max(opts.allowDataUri ? MAX_DATA_URI_LENGTH : MAX_URL_LENGTH)
    .describe(`${what}: ${takes}`)
    .superRefine((value, ctx) => {
      const ref = parseMediaRef(value);
      const problem = ref.type === 'url' ? publicMediaUrlProblem(value, opts) : localRefFormProblem(ref);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/**
 * Optional `webhook_url`: form only (public https URL). The operator allow-list needs the config, so the
 * tool runtime checks it with `checkWebhookUrl` before anything is sent.
 */
export function webhookUrlField(description = 'allow-listed callback') {
  return z
    .string()
    .max(MAX_URL_LENGTH)
    .describe(description)
    .superRefine((value, ctx) => {
      const problem = webhookUrlFormProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional();
}
