/**
 * A create_campaign answer as an MCP task (SEP-2663; issue 21 item 4), the campaign half of src/protocol/tasks.ts:
 * `tasks/get` reads the campaign's view (src/jobs/campaign-view.ts: one poller read per running item, so no more
 * platform reads than get_job) and reports "k of N done" while any item is not final, then completes with the
 * campaign's envelope (per-item status, outputs, charges and the platform's reasons in `details.campaign`).
 * A campaign where no item completed is a tool-level error (`isError`), like a failed job.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ownsCampaign } from '../jobs/campaign-uri.js';
import { CAMPAIGN_HANDLE_PREFIX, campaignDone, campaignEnvelope, readCampaign } from '../jobs/campaign-view.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import { envelopeResult } from '../result.js';

export interface CampaignTaskState {
  status: 'working' | 'completed';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: CallToolResult & { resultType: 'complete' };
}

/**
 * The campaign task as it stands, or undefined when this caller has no such campaign (the caller answers
 * "task not found", the same as for a forged id).
 */
export async function campaignTaskState(
  handle: string,
  deps: { jobs: JobStore; poller: Poller; owner?: string | undefined },
): Promise<CampaignTaskState | undefined> {
  const id = handle.trim().slice(CAMPAIGN_HANDLE_PREFIX.length);
  if (!(await ownsCampaign(deps.jobs, deps.owner, id))) return undefined;
  const view = await readCampaign(deps.jobs, deps.poller, handle, deps.owner);
  const records = await deps.jobs.bundleItems(id);
  const created = records.map((r) => r.createdAt).sort()[0]!;
  const updated = records
    .map((r) => r.updatedAt)
    .sort()
    .at(-1)!;
  const times = { createdAt: created, lastUpdatedAt: updated };
  if (!campaignDone(view)) return { status: 'working', statusMessage: view.progress, ...times };
  const env = campaignEnvelope(view);
  const isError = env.status !== 'completed';
  return {
    status: 'completed',
    statusMessage: isError ? `the campaign ended with no item completed: ${env.reason ?? ''}` : env.next_step,
    ...times,
    result: { resultType: 'complete', ...envelopeResult(env), ...(isError ? { isError: true } : {}) },
  };
}
