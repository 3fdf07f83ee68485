import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { decodeHandle } from '../../src/jobs/handle.js';
import type { JobRecord } from '../../src/jobs/store.js';
import { upscaleEstimate } from '../../src/paid/pricing/estimate.js';
import { upscaleExclusiveKey } from '../../src/store/record.js';
import { checkVideoType, quoteWithProgress, upscaleBody, upscaleFields } from '../_shared/upscale.js';

/** Ledger statuses of an attempt that may still run (pending intents are recorded as `submitted`). */
const ACTIVE = ['submitted', 'processing', 'unknown'] as const;

/**
 * The summary doubles as the key for attempts the platform never gave ids for (outcome unknown or pending):
 * their ledger record has no remote id, only this text.
 */
/**
 * An attempt without platform ids (outcome unknown, or never answered) cannot be re-read, so it blocks for a
 * bounded time only: an attempt runs minutes (probe up to 370 s, then processing), and a day is far past that.
 */
const UNREADABLE_BLOCK_MS = 24 * 60 * 60_000;

const summaryKey = (videoId: string) => `upscale of video ${JSON.stringify(videoId)}`;

/** An upscale attempt in the ledger that may still be running for this video (re-read when it can be). */
async function activeAttempt(videoId: string, ctx: ToolContext): Promise<JobRecord | undefined> {
  const records = await ctx.jobs.list({ status: [...ACTIVE] });
  for (const rec of records) {
    if (rec.kind !== 'upscale') continue;
    if (rec.remote?.id !== videoId && !rec.summary.startsWith(summaryKey(videoId))) continue;
    const ref = decodeHandle(rec.handle);
    if (ref?.kind !== 'upscale') {
      if (Date.now() - Date.parse(rec.createdAt) > UNREADABLE_BLOCK_MS) continue;
    } else {
      // The ledger only knows what was last seen: one status read (free, GET) avoids refusing over a stale record.
      const seen = await ctx.poller.read(ref).catch(() => undefined);
      if (seen && (seen.view.status === 'completed' || seen.view.status === 'failed')) continue;
    }
    return rec;
  }
  return undefined;
}

/** @throws UserInputError on `video_id` while an attempt for the video may still run. */
async function refuseIfActive(videoId: string, ctx: ToolContext): Promise<void> {
  const active = await activeAttempt(videoId, ctx);
  if (active) throw activeRefusal(active, ctx.owner);
}

function activeRefusal(active: JobRecord, owner: string | undefined): UserInputError {
  // Another caller's handle is not shown (HTTP mode: jobs belong to their owner).
  const handle = active.owner === owner ? active.handle : 'of another caller';
  return new UserInputError(
    'video_id',
    `an upscale attempt for this video is still active (handle ${handle}); the platform is not idempotent`,
    'Follow the active attempt with wait_for_jobs and upscale again only after it has finished.',
  );
}

/**
 * The video's URL as this server last knew it, before the upscale replaces it: the newest completed upscale
 * of the video, else the job that produced it. A video made elsewhere is unknown here and cannot be
 * recovered through the API once replaced.
 */
async function currentUrl(videoId: string, ctx: ToolContext): Promise<string | undefined> {
  const records = await ctx.jobs.list({ status: ['completed'] });
  const upscaled = records.find((r) => r.kind === 'upscale' && r.remote?.id === videoId && r.outputs[0]);
  const produced = records.find((r) => r.kind !== 'upscale' && r.remote?.id === videoId && r.outputs[0]);
  return (upscaled ?? produced)?.outputs[0]?.url;
}

/** POST /upscale/generate: one billed attempt. Not idempotent, so a second attempt while one runs is refused. */
export default defineTool({
  name: 'upscale_video',
  title: 'Upscale a video',
  toolset: 'upscale',
  description:
    'Upscales an owned video; the platform replaces its URL (the job keeps the original). Billable (slow quote).',
  input: upscaleFields,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    checkVideoType(input.video_type, ctx.config.vendors);
    // Early, before the slow quote and consent; `exclusive` repeats it inside store.admit.
    await refuseIfActive(input.video_id, ctx);
  },
  billable: {
    kind: () => 'upscale',
    async estimate(input, ctx) {
      const { data } = await quoteWithProgress(input, ctx);
      return upscaleEstimate(ctx.config, data.quote.credits);
    },
    // The platform replaces the video's record with the upscaled one (spec: "save the original first").
    quoteNote: () =>
      'The original video is replaced by the upscaled one: if the user wants both, save the original first (save_outputs on its job, or download its URL) before confirming.',
    summary: (i) =>
      `${summaryKey(i.video_id)} (${i.video_type}, project ${i.project_id}) to ${i.target_resolution} with ${i.model_family} ${i.model}`,
    // After consent, before admit: re-read active attempts (free GETs, no lock held) so a finished one is
    // settled in the store and stops blocking; refuses early with the active handle.
    beforeAdmit: (input, ctx) => refuseIfActive(input.video_id, ctx),
    // Inside admit's transaction: two parallel calls (or two processes) for one video cannot both pass.
    exclusive: (input) => ({
      key: upscaleExclusiveKey(input.video_id),
      staleAfterMs: UNREADABLE_BLOCK_MS,
      refuse: (active, owner) => activeRefusal(active, owner),
    }),
  },
  request: (input) => ({ route: '/upscale/generate', body: upscaleBody(input) }),
  async run(input, ctx, { body }) {
    const originalUrl = await currentUrl(input.video_id, ctx);
    // No `signal`: once the paid POST is on its way, finishing it is the only way to learn the billing_id.
    const { data, requestId } = await ctx.client.upscale.generate(body);
    const projectId = data.project_id ?? input.project_id;
    return {
      ref: { kind: 'upscale', id: data.id, videoType: input.video_type, projectId, billingId: data.billing_id },
      requestId,
      remote: { id: data.id, project_id: projectId, billing_id: data.billing_id },
      ...(originalUrl ? { originalUrl } : {}),
      details: originalUrl
        ? { original_url: originalUrl }
        : { original_url_note: 'this server never saw the video, so its URL before the upscale is not saved' },
    };
  },
});
