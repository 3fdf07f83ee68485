import { createHash } from 'node:crypto';
import { z } from 'zod';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { approvalEnvelope, heldEnvelope, isApprovalHandle, nameOfPeople } from '../../src/jobs/approval-view.js';
import {
  CAMPAIGN_HANDLE_PREFIX,
  campaignEnvelope,
  isCampaignHandle,
  readCampaignRecords,
} from '../../src/jobs/campaign-view.js';
import { JobEnvelopeShape } from '../../src/jobs/envelope.js';
import {
  decodeHandle,
  isPollable,
  type JobRef,
  jobKey,
  MAX_HANDLE_LENGTH,
  MAX_ID_LENGTH,
  tryEncodeHandle,
} from '../../src/jobs/handle.js';
import { kindDef, POLLABLE_KINDS } from '../../src/jobs/kinds/index.js';
import { assertKnownToCaller, resolveJob } from '../../src/jobs/owner.js';
import { type JobView, viewEnvelope } from '../../src/jobs/status.js';
import type { JobRecord } from '../../src/jobs/store.js';
import { envelopeLinks } from '../../src/result.js';

const id = (what: string, max = 256) => z.string().trim().min(1).max(max).describe(what);

const Input = {
  handle: z.string().trim().min(1).max(MAX_HANDLE_LENGTH).optional().describe('from a create tool or list_jobs'),
  // Kinds with a status endpoint, in registry order (custom avatars and submissions are reachable by handle only).
  kind: z.enum(POLLABLE_KINDS).optional().describe('for a job started elsewhere (with id)'),
  // Longer than the spec's 256 for upscale ids: a platform id too long for a handle is followed by kind + id.
  id: id('platform id (id, db_id, request_id; upscale: video_id)', MAX_ID_LENGTH).optional(),
  media: z.enum(['image', 'video']).optional().describe('model jobs (default: video, then image)'),
  project_id: id('upscale: project_id').optional(),
  video_type: id('upscale: video_type').optional(),
  billing_id: id('upscale: billing_id').optional(),
};
type GetJobInput = { [K in keyof typeof Input]?: z.infer<(typeof Input)[K]> };

/**
 * The job reference from either a handle or raw ids (flat input: no root anyOf/oneOf).
 * @throws UserInputError naming the missing or conflicting field.
 */
export function refFromInput(input: GetJobInput): JobRef {
  if (input.handle !== undefined) {
    if (input.kind !== undefined || input.id !== undefined) {
      throw new UserInputError('handle', 'give either handle, or kind + id, not both');
    }
    const ref = decodeHandle(input.handle);
    if (!ref) throw new UserInputError('handle', 'not a job handle (e.g. actor_video:abc123); see list_jobs');
    return ref;
  }
  if (input.kind === undefined)
    throw new UserInputError('handle', 'required (or kind + id for a job started elsewhere)');
  if (input.id === undefined) throw new UserInputError('id', `required with kind ${input.kind}`);
  // Which of the raw ids a kind needs (and how they make its ref) is the kind's own (src/jobs/kinds/).
  return kindDef(input.kind).status!.fromIds({ ...input, id: input.id });
}

/**
 * A job followed by raw id gets a ledger record (tool `external`) so list_jobs shows it and later polls
 * record its state. Its charges, once the platform reports them, count toward today's spend: the account
 * really paid them, and ceilings err on the safe side.
 */
async function adoptExternal(ref: JobRef, view: JobView, ctx: ToolContext): Promise<JobRecord | undefined> {
  // Only jobs the platform knows: an id it cannot find must not leave a phantom "processing" record.
  if (view.status === 'unknown') return undefined;
  // Without a handle of its own (odd id) the ledger names it `submission:<ledger id>`; `ref` keeps the id.
  const handle = tryEncodeHandle(ref);
  const rec = await ctx.jobs.track({
    tool: 'external',
    kind: ref.kind,
    fingerprint: createHash('sha256')
      .update(`external\n${jobKey(ref)}`)
      .digest('hex'),
    summary: `${ref.kind} started elsewhere, followed by id`,
    estimate: undefined,
    consent: undefined,
    owner: ctx.owner,
    ...(handle ? { handle } : {}),
    ref,
    status: view.status,
    outcome: 'submitted',
    remote: kindDef(ref.kind).remote(ref),
  });
  // This first read happened before the record existed, so the poller could not store it; later reads will.
  return ctx.jobs.observe(rec.id, {
    outputs: view.outputs,
    ...(view.reason ? { reason: view.reason } : {}),
    ...(view.creditsCharged !== undefined ? { creditsCharged: view.creditsCharged } : {}),
    ...(view.creditsRefunded !== undefined ? { creditsRefunded: view.creditsRefunded } : {}),
  });
}

export default defineTool({
  name: 'get_job',
  title: 'Get job status',
  toolset: 'jobs',
  description:
    'One read of a job or campaign: status, outputs, reason, charges. By handle, or kind + id (started elsewhere). Free.',
  input: Input,
  output: JobEnvelopeShape,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  ui: JOB_VIEWER_URI,
  async validate(input) {
    if (input.handle !== undefined && (isCampaignHandle(input.handle) || isApprovalHandle(input.handle))) return;
    refFromInput(input);
  },
  async run(input, ctx) {
    const approvals = { ...ctx, nameOf: nameOfPeople(ctx.config) };
    if (input.handle !== undefined && isApprovalHandle(input.handle)) {
      // Issue 28 item 5: pending / declined / expired as such, approved → what was sent (src/jobs/approval-view.ts).
      const env = await approvalEnvelope(approvals, input.handle, 'handle');
      return { structured: env, links: envelopeLinks(env) };
    }
    if (input.handle !== undefined && isCampaignHandle(input.handle)) {
      const { view, records } = await readCampaignRecords(ctx.jobs, ctx.poller, input.handle, ctx.owner);
      // A campaign held for an approval says so, instead of "0 of N done".
      const env =
        (await heldEnvelope(approvals, records, `${CAMPAIGN_HANDLE_PREFIX}${view.campaign}`, 'campaign')) ??
        campaignEnvelope(view);
      return { structured: env, links: envelopeLinks(env) };
    }
    // HTTP mode: another caller's job, by any alias, is refused before anything is read or adopted.
    const field = input.handle === undefined ? 'id' : 'handle';
    const job = await resolveJob(ctx.jobs, ctx.owner, refFromInput(input), field);
    const held = job.rec && (await heldEnvelope(approvals, [job.rec], job.rec.handle, job.rec.kind));
    if (held) return { structured: held, links: envelopeLinks(held) };
    const { ref } = job;
    const { view } = await ctx.poller.read(ref);
    assertKnownToCaller(ctx.owner, job, view.status, field);
    // A job followed by raw id is adopted once; any record of it (under any alias) means it is known.
    const rec = job.rec ?? (input.handle === undefined ? await adoptExternal(ref, view, ctx) : undefined);
    // Only an odd id the platform does not know is left without a handle; the envelope still says kind + id.
    const handle = job.handle ?? rec?.handle;
    const env = viewEnvelope(handle, ref, view, rec);
    // A failed job, or one the platform cannot find, is an error for the agent (style.md 2.3).
    // A ledger-only handle with a record (unknown outcome) is a state to report, not an error.
    const isError = view.status === 'failed' || (view.status === 'unknown' && (isPollable(ref) || !rec));
    return { structured: env, links: envelopeLinks(env), ...(isError ? { isError } : {}) };
  },
});
