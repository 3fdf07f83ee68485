import { z } from 'zod';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import {
  approvalEnvelope,
  approvalFor,
  followRecord,
  heldApprovalId,
  heldEnvelope,
  isApprovalHandle,
  nameOfPeople,
} from '../../src/jobs/approval-view.js';
import {
  CAMPAIGN_HANDLE_PREFIX,
  campaignEnvelope,
  isCampaignHandle,
  readCampaignRecords,
} from '../../src/jobs/campaign-view.js';
import { openWork, untilSomethingMoves } from '../../src/jobs/campaign-wait.js';
import { JobEnvelopeSchema } from '../../src/jobs/envelope.js';
import { decodeHandle, isPollable, type JobRef, MAX_HANDLE_LENGTH } from '../../src/jobs/handle.js';
import { type ResolvedJob, resolveJob } from '../../src/jobs/owner.js';
import { waitProgress } from '../../src/jobs/progress.js';
import { viewEnvelope } from '../../src/jobs/status.js';
import { waitForJobs } from '../../src/jobs/wait.js';
import type { ResourceLink } from '../../src/result.js';

/**
 * Default 45 s and cap 50 s: hosts cut tool calls at ~60 s and the SDK client's default request timeout is
 * 60 s (mcp-notes 0.4, 2.13); the margin covers the last in-flight read and the reply.
 */
const DEFAULT_WAIT_S = 45;
const MAX_WAIT_S = 50;
/** Output budget: 50 envelopes stay far below the hosts' ~50 000-character result limit (mcp-notes 2.8). */
const MAX_HANDLES = 50;

export default defineTool({
  name: 'wait_for_jobs',
  title: 'Wait for jobs',
  toolset: 'jobs',
  description:
    'Waits up to max_wait_s for jobs or campaigns; returns envelopes. Call again with pending ones. Free; never cancels.',
  input: {
    handles: z
      .array(z.string().trim().min(1).max(MAX_HANDLE_LENGTH).describe('job handle'))
      .min(1)
      .max(MAX_HANDLES)
      .describe('job handles to wait for'),
    until: z.enum(['any', 'all']).default('all').describe('any or all jobs done'),
    max_wait_s: z.number().int().min(1).max(MAX_WAIT_S).default(DEFAULT_WAIT_S).describe('seconds'),
  },
  output: {
    jobs: z.array(JobEnvelopeSchema).describe('one envelope per handle, in order'),
    done: z.boolean().describe('true when the until condition held'),
    pending: z.array(z.string()).describe('handles still processing'),
    next_step: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  ui: JOB_VIEWER_URI,
  async validate({ handles }, ctx) {
    // Someone else's approval is refused like someone else's job, before any wait starts.
    for (const [i, h] of handles.entries())
      if (isApprovalHandle(h)) await approvalFor(ctx.jobs, ctx.owner, h, `handles[${i}]`);
    await resolveAll(
      handles.filter((h) => !isLooked(h)),
      ctx,
    );
  },
  async run(input, ctx) {
    if (input.handles.some(isLooked)) return waitWithCampaigns(input, ctx);
    const { handles, until, max_wait_s } = input;
    const resolved = await resolveAll(handles, ctx);
    // A job held for an approval moves by a decision, which no status read announces: looked at like a campaign.
    if (resolved.some((j) => heldApprovalId(j.rec) !== undefined)) return waitWithCampaigns(input, ctx);
    const refs = resolved.map((j) => j.ref);
    const r = await waitForJobs(ctx.poller, refs, {
      handles: resolved.map((j) => j.handle),
      until,
      maxWaitMs: max_wait_s * 1000,
      signal: ctx.signal,
      onProgress: (p) => ctx.progress(p),
    });
    const jobs = await Promise.all(
      r.jobs.map(async ({ handle, view }, i) =>
        viewEnvelope(handle, refs[i]!, view, await ctx.jobs.getByRef(refs[i]!)),
      ),
    );
    const links: ResourceLink[] = jobs.flatMap((j) =>
      (j.outputs ?? []).map((o, k) => ({ uri: o.url, name: `${j.handle} ${o.media} ${k + 1}` })),
    );
    const again = `Call wait_for_jobs with handles ${JSON.stringify(r.pending)}`;
    let next_step: string;
    if (r.pending.length === 0)
      next_step = 'No job is still running: results are in jobs[].outputs, reasons in jobs[].reason.';
    else if (r.done) next_step = `A job finished (see jobs). ${again} to wait for the rest.`;
    else next_step = `Time ran out; the jobs keep running. ${again} to keep waiting.`;
    // Only an answer where nothing worked is an error (every job failed, or unknown to the platform);
    // a mix is a normal report the agent reads job by job.
    const isError = jobs.every((j, i) => j.status === 'failed' || (j.status === 'unknown' && isPollable(refs[i]!)));
    return {
      structured: { jobs, done: r.done, pending: r.pending, next_step },
      links,
      ...(isError ? { isError } : {}),
    };
  },
});

/** Handles read from the store round by round (not followed by the poller alone): campaigns and approvals. */
function isLooked(h: string): boolean {
  return isCampaignHandle(h) || isApprovalHandle(h);
}

/** Finished for the wait: a final job or campaign, or an approval declined or expired (nothing will be sent). */
function isFinished(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'declined';
}

/**
 * Each handle → the job it names (a `submission:` handle of an accepted job → its platform reference).
 * @throws UserInputError(handles[i]) for a string that is not a handle, or (HTTP mode) another caller's job
 *   under any alias, before any wait starts.
 */
async function resolveAll(handles: string[], ctx: Pick<ToolContext, 'jobs' | 'owner'>): Promise<ResolvedJob[]> {
  const out: ResolvedJob[] = [];
  for (const [i, h] of handles.entries()) {
    const ref: JobRef | undefined = decodeHandle(h);
    if (!ref) throw new UserInputError(`handles[${i}]`, 'not a job handle (e.g. actor_video:abc123); see list_jobs');
    out.push(await resolveJob(ctx.jobs, ctx.owner, ref, `handles[${i}]`));
  }
  return out;
}

/**
 * Campaign handles (issue 21): a campaign is done when every item is final. Job handles given alongside are
 * read through the poller's cache each time round (`get_job`'s read); the answer keeps the order of `handles`.
 * Between rounds it sleeps until the poller has news or an unsent item may have moved (src/jobs/campaign-wait.ts).
 */
async function waitWithCampaigns(
  input: { handles: string[]; until: 'any' | 'all'; max_wait_s: number },
  ctx: ToolContext,
) {
  const deadline = Date.now() + input.max_wait_s * 1000;
  const jobHandles = input.handles.filter((h) => !isLooked(h));
  const resolved = new Map((await resolveAll(jobHandles, ctx)).map((j, i) => [jobHandles[i]!, j]));
  const refs = new Map([...resolved].map(([h, j]) => [h, j.ref]));
  const approvals = { ...ctx, nameOf: nameOfPeople(ctx.config) };
  for (;;) {
    // Which handles wait on an approval this round (pending, or approved and not yet sent): a decision or the
    // unhold is a store write no read announces, so the round ends at the poller's pace for them.
    const onApproval = new Set<string>();
    const envelopes = await Promise.all(
      input.handles.map(async (h, i) => {
        if (isApprovalHandle(h)) {
          onApproval.add(h);
          return approvalEnvelope(approvals, h, `handles[${i}]`);
        }
        if (isCampaignHandle(h)) {
          const { view, records } = await readCampaignRecords(ctx.jobs, ctx.poller, h, ctx.owner, 'handles');
          const held = await heldEnvelope(approvals, records, `${CAMPAIGN_HANDLE_PREFIX}${view.campaign}`, 'campaign');
          return held ?? campaignEnvelope(view);
        }
        const j = resolved.get(h)!;
        if (j.rec && heldApprovalId(j.rec) !== undefined) {
          // Held when resolved: its decision, unhold and send are store writes no read announces, so it is looked
          // at afresh each round (at the poller's pace), by its platform reference once it has one.
          onApproval.add(h);
          const rec = (await ctx.jobs.get(j.rec.id)) ?? j.rec;
          return (
            (await heldEnvelope(approvals, [rec], rec.handle, rec.kind)) ??
            (await followRecord(approvals, rec, `handles[${i}]`))
          );
        }
        const { view } = await ctx.poller.read(j.ref);
        return viewEnvelope(j.handle, j.ref, view, await ctx.jobs.getByRef(j.ref));
      }),
    );
    const finished = envelopes.map((e) => isFinished(e.status));
    const done = input.until === 'any' ? finished.some(Boolean) : finished.every(Boolean);
    const pending = input.handles.filter((_, i) => !finished[i]);
    // In items and jobs ("3 of 6 done"), not handles: a campaign alone is not 0/1 then 1/1.
    await ctx.progress(waitProgress(envelopes, finished));
    if (done || Date.now() >= deadline || ctx.signal.aborted) {
      const again = `Call wait_for_jobs with handles ${JSON.stringify(pending)}`;
      const next_step =
        pending.length === 0
          ? 'Nothing is still running: results are in jobs[].outputs (campaigns: details.campaign.items).'
          : done
            ? `Done for now (see jobs). ${again} to wait for the rest.`
            : `Time ran out; everything keeps running. ${again} to keep waiting.`;
      const links: ResourceLink[] = envelopes.flatMap((j) =>
        (j.outputs ?? []).map((o, k) => ({ uri: o.url, name: `${j.handle} ${o.media} ${k + 1}` })),
      );
      return { structured: { jobs: envelopes, done, pending, next_step }, links };
    }
    const work = await openWork(input.handles, refs, finished, ctx.jobs);
    if (input.handles.some((h, i) => !finished[i] && onApproval.has(h))) work.unsent = true;
    await untilSomethingMoves(ctx.poller, work, deadline - Date.now(), ctx.signal);
  }
}
