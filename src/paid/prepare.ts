/**
 * The front half of a paid request: validate → request → price, before any consent. Free: no POST, no write.
 * A single call runs it once (pipeline.ts), a bundle once per item (bundle.ts).
 */
import type { z } from 'zod';
import type { BillableToolSpec, PlatformRequest, ToolContext } from '../define-tool.js';
import { type FilesDeps, type LocalMediaRequest, resolveLocalMedia } from '../files/local-media.js';
import { checkWebhookUrl } from '../guards/url.js';
import type { Estimate } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import { finaliseEstimate } from './pricing/estimate.js';

/** A request ready for consent: the exact request, its local files by placeholder, its quote, kind and summary. */
export interface PreparedCall {
  request: PlatformRequest;
  files: LocalMediaRequest['files'];
  estimate: Estimate;
  kind: JobKind;
  summary: string;
}

/**
 * The front half every paid request shares (a single call, and each item of a bundle: bundle.ts): validate → request → price.
 * Free: no POST, no write. @throws UserInputError naming the field (nothing sent).
 */
export async function prepareCall(
  spec: BillableToolSpec<z.ZodRawShape>,
  raw: Record<string, unknown>,
  ctx: ToolContext,
  local: {
    files: FilesDeps;
    owner: string | undefined;
    /** Refusals that need the built request and no price (a campaign item's duplicate rule): before pricing. */
    beforePrice?: ((request: PlatformRequest) => Promise<void>) | undefined;
  },
): Promise<PreparedCall> {
  const input = raw as never;
  if (typeof raw.webhook_url === 'string' && raw.webhook_url !== '') {
    checkWebhookUrl('webhook_url', raw.webhook_url, ctx.config.webhookAllowlist);
  }
  await spec.validate?.(input, ctx);
  // Built once: the fingerprint (what the token and the duplicate rule bind to) and the POST in run() use
  // this same object, so what the user consented to is byte for byte what is sent.
  // Local files in media fields become `local:<sha256>/<name>` here, so consent binds their content (src/files/).
  const { request, files } = await resolveLocalMedia(await spec.request(input, ctx), local.files, local.owner);
  await local.beforePrice?.(request);
  const estimate = finaliseEstimate(ctx.config, spec.name, await spec.billable.estimate(input, ctx));
  return { request, files, estimate, kind: spec.billable.kind(input), summary: spec.billable.summary(input) };
}
