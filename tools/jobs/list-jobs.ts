import { z } from 'zod';
import { SPEND_REPORT_URI } from '../../src/apps/uris.js';
import { defineTool } from '../../src/define-tool.js';
import { awaitingDecisionRows, withPendingApprovals } from '../../src/jobs/approval-rows.js';
import { nameOfPeople } from '../../src/jobs/approval-view.js';
import { type CampaignRow, groupCampaigns } from '../../src/jobs/campaign-rows.js';
import { EstimateSchema, JOB_STATUSES, OutputSchema, withBounded } from '../../src/jobs/envelope.js';
import { ReconciliationSchema, reconcile } from '../../src/jobs/reconcile.js';
import { SpendSchema, spendToday } from '../../src/jobs/spend.js';
import { CONSENT_PATHS, type JobRecord } from '../../src/jobs/store.js';

/** Default page: enough for a session's jobs without flooding the context; the cap keeps output < ~50 KB. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** A campaign's row: its handle, k of N done and its totals; the items are behind get_job `campaign:<id>`. */
function campaignJob(c: CampaignRow) {
  return {
    handle: c.campaign.handle,
    tool: 'create_campaign',
    status: c.status,
    summary: c.summary,
    estimate: c.estimate,
    ...(c.consent ? { consent: c.consent } : {}),
    credits_charged: c.campaign.charged_total,
    ...(c.reason ? { reason: c.reason } : {}),
    created_at: c.createdAt,
    outputs: c.campaign.items.flatMap((i) => i.outputs),
  };
}

/** One job's row, as the ledger stores it. */
function jobRow(r: JobRecord) {
  return {
    handle: r.handle,
    tool: r.tool,
    status: r.status,
    summary: r.summary,
    ...(r.estimate ? { estimate: withBounded(r.estimate) } : {}),
    // How the call was consented to, as the audit trail records it (policy, token, elicitation, click).
    ...(r.consent ? { consent: r.consent } : {}),
    ...(r.creditsCharged !== undefined ? { credits_charged: r.creditsCharged } : {}),
    ...withReconciliation(r),
    ...(r.reason ? { reason: r.reason } : {}),
    created_at: r.createdAt,
    outputs: r.outputs,
  };
}

/** Quote vs reported charge, once the platform reported one. */
function withReconciliation(r: JobRecord) {
  const rc = reconcile(r);
  return rc ? { reconciliation: rc } : {};
}

export default defineTool({
  name: 'list_jobs',
  title: 'List jobs and spend',
  toolset: 'jobs',
  // A host with MCP Apps shows the spend report (table + chart by person, team, tool, period) beside the list:
  // the View reads genplat://spend/report itself, scoped to the caller as this tool's spend is.
  ui: SPEND_REPORT_URI,
  description: "Ledger jobs (newest first) with today's spend, ceilings and confirmation policy. Free.",
  input: {
    status: z.enum(JOB_STATUSES).optional().describe('only this status'),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe('how many jobs'),
  },
  output: {
    jobs: z.array(
      z.object({
        handle: z.string(),
        tool: z.string().describe('creating tool, or external for a job followed by id'),
        status: z.enum(JOB_STATUSES),
        summary: z.string(),
        estimate: EstimateSchema.optional(),
        consent: z.enum(CONSENT_PATHS).optional(),
        credits_charged: z.number().optional(),
        reconciliation: ReconciliationSchema.optional(),
        reason: z.string().optional(),
        created_at: z.string(),
        outputs: z.array(OutputSchema),
        awaiting_your_decision: z
          .boolean()
          .optional()
          .describe('true: another person asks, and you may approve (decide_approval)'),
      }),
    ),
    spend: SpendSchema,
    next_step: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ status, limit }, ctx) {
    // A held record keeps its own status in the store; its row's status (approval_required) is the view's, so
    // that filter reads every record and keeps the approval rows.
    const byStore = status !== undefined && status !== 'approval_required';
    const records = await ctx.jobs.list({ owner: ctx.owner, limit, ...(byStore ? { status: [status] } : {}) });
    const entries = await groupCampaigns(records, ctx.jobs, byStore ? status : undefined);
    const opts = { now: Date.now(), nameOf: nameOfPeople(ctx.config) };
    const rows = [
      ...(await awaitingDecisionRows(ctx.jobs, ctx.owner, opts)),
      ...(await withPendingApprovals(
        entries,
        (e) => ('campaign' in e ? campaignJob(e.campaign) : jobRow(e.job)),
        ctx.jobs,
        opts,
      )),
    ];
    const jobs = status === undefined ? rows : rows.filter((j) => j.status === status);
    const deciding = jobs.filter((j) => 'awaiting_your_decision' in j && j.awaiting_your_decision).length;
    const decideNote = deciding
      ? `${deciding} request(s) of other people await your decision (awaiting_your_decision): show them to the user and decide with decide_approval only as the user says. `
      : '';
    const running = jobs.filter((j) => j.status === 'processing' || j.status === 'submitted').map((j) => j.handle);
    const over = jobs.filter((j) => 'reconciliation' in j && j.reconciliation?.above_quote).map((j) => j.handle);
    const overNote = over.length
      ? `The platform charged above the quote for ${JSON.stringify(over.slice(0, 10))} (see reconciliation); tell the user. `
      : '';
    const next_step =
      decideNote +
      overNote +
      (running.length
        ? `Call wait_for_jobs with handles ${JSON.stringify(running.slice(0, 50))} for live status.`
        : 'No job is running. Start one with a create tool, or get_job for details of one job.');
    return { structured: { jobs, spend: await spendToday(ctx.config, ctx.jobs, ctx.owner), next_step } };
  },
});
