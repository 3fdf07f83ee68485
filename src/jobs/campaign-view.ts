/**
 * The read model of a campaign (issue 21 item 4): one shape for get_job, wait_for_jobs, the campaign resource
 * and the campaign board (item 5). Built from the campaign's item records; items still running are read once
 * through the shared poller (which writes what it learns to the store), so a view costs at most one status
 * read per running item per poll interval, however many callers look.
 */
import { UserInputError } from '../errors.js';
import type { JobEnvelope, JobOutput } from './envelope.js';
import { isPollable, recordRef } from './handle.js';
import { findKind } from './kinds/index.js';
import type { Poller } from './poller.js';
import type { JobRecord, JobStore } from './store.js';
import { doneOf } from './wording.js';

export const CAMPAIGN_HANDLE_PREFIX = 'campaign:';

/** One item as the views show it. `status` adds `queued` (admitted, unsent) and `released` to the job statuses. */
export interface CampaignItemView {
  index: number;
  tool: string;
  summary: string;
  /** The fields this item varies (`avatar_id`, `voice_id`, …). */
  varied: Record<string, unknown>;
  status: 'queued' | 'sending' | 'processing' | 'completed' | 'failed' | 'released' | 'unknown';
  handle: string;
  quote: number;
  bounded: boolean;
  charged?: number | undefined;
  refunded?: number | undefined;
  outputs: JobOutput[];
  /** The platform's reason for a failure, or why an item was released or is unknown. */
  reason?: string | undefined;
  /**
   * The `upscale_video` source fields of a completed video the platform can upscale (the board's "upscale the
   * picked"): absent when a field is unknown (a talking video's answer carries no project_id).
   */
  upscale?: { video_id: string; project_id: string; video_type: string } | undefined;
}

export interface CampaignView {
  campaign: string;
  handle: string;
  total: number;
  done: number;
  /** "k of N done". */
  progress: string;
  quote_total: number;
  charged_total: number;
  items: CampaignItemView[];
}

const FINAL = new Set<CampaignItemView['status']>(['completed', 'failed', 'released', 'unknown']);

export function isCampaignHandle(handle: string): boolean {
  return handle.trim().startsWith(CAMPAIGN_HANDLE_PREFIX);
}

function itemStatus(r: JobRecord): CampaignItemView['status'] {
  if (r.outcome === 'queued') return 'queued';
  if (r.outcome === 'pending') return 'sending';
  if (r.outcome === 'unknown') return 'unknown';
  if (r.outcome === 'rejected') return r.reason?.startsWith('released') ? 'released' : 'failed';
  if (r.status === 'completed' || r.status === 'failed') return r.status;
  return 'processing';
}

function itemView(r: JobRecord): CampaignItemView {
  return {
    index: r.campaign?.index ?? 0,
    tool: r.tool,
    summary: r.summary,
    varied: r.campaign?.varied ?? {},
    status: itemStatus(r),
    handle: r.handle,
    quote: r.estimate?.credits ?? 0,
    bounded: r.estimate?.bounded ?? false,
    ...(r.creditsCharged !== undefined ? { charged: r.creditsCharged } : {}),
    ...(r.creditsRefunded !== undefined ? { refunded: r.creditsRefunded } : {}),
    outputs: r.outputs,
    ...(r.reason ? { reason: r.reason } : {}),
    ...upscaleSource(r),
  };
}

/** `{upscale}` when every upscale source field of a finished video is known, else nothing. */
function upscaleSource(r: JobRecord): Pick<CampaignItemView, 'upscale'> {
  // The kind registry names the spec's `video_type` each kind's finished videos are registered under.
  const videoType = findKind(r.kind)?.sim?.ownedVideoType;
  const { id, project_id } = r.remote ?? {};
  if (r.status !== 'completed' || !videoType || !id || !project_id) return {};
  if (!r.outputs.some((o) => o.media === 'video')) return {};
  return { upscale: { video_id: id, project_id, video_type: videoType } };
}

/**
 * The campaign's view, after one poller read of each item still running.
 * @throws UserInputError (`field`) when no campaign has this id for this caller (HTTP: another caller's is
 *   reported the same way, so ids are not probed).
 */
export async function readCampaign(
  jobs: JobStore,
  poller: Poller,
  handle: string,
  owner: string | undefined,
  field = 'handle',
): Promise<CampaignView> {
  return (await readCampaignRecords(jobs, poller, handle, owner, field)).view;
}

/** `readCampaign`, with the item records the view was built from (e.g. whether they are held for an approval). */
export async function readCampaignRecords(
  jobs: JobStore,
  poller: Poller,
  handle: string,
  owner: string | undefined,
  field = 'handle',
): Promise<{ view: CampaignView; records: JobRecord[] }> {
  const id = handle.trim().slice(CAMPAIGN_HANDLE_PREFIX.length);
  let records = await jobs.bundleItems(id);
  if (records.length === 0 || (owner !== undefined && records.some((r) => r.owner !== owner))) {
    // A campaign whose admission's answer was lost and that is not on record was never admitted: nothing was sent.
    throw new UserInputError(
      field,
      `no campaign ${handle} is on record for you (if it was never admitted, nothing was sent)`,
    );
  }
  const running = records.filter((r) => itemStatus(r) === 'processing');
  if (running.length > 0) {
    await Promise.all(
      running.map(async (r) => {
        const ref = recordRef(r);
        if (ref && isPollable(ref)) await poller.read(ref).catch(() => undefined);
      }),
    );
    records = await jobs.bundleItems(id);
  }
  return { view: campaignFromRecords(id, records), records };
}

/**
 * The view from the records as stored, without a status read: list_jobs' campaign row (a ledger read must not
 * cost platform reads) and readCampaign after its poller pass.
 */
export function campaignFromRecords(id: string, records: JobRecord[]): CampaignView {
  const items = records.map(itemView).sort((a, b) => a.index - b.index);
  const done = items.filter((i) => FINAL.has(i.status)).length;
  return {
    campaign: id,
    handle: `${CAMPAIGN_HANDLE_PREFIX}${id}`,
    total: items.length,
    done,
    progress: doneOf(done, items.length),
    quote_total: items.reduce((s, i) => s + i.quote, 0),
    charged_total: items.reduce((s, i) => s + Math.max(0, (i.charged ?? 0) - (i.refunded ?? 0)), 0),
    items,
  };
}

export function campaignDone(v: CampaignView): boolean {
  return v.done === v.total;
}

/** The job envelope of a campaign: the view rides in `details.campaign`, all outputs in `outputs`. */
export function campaignEnvelope(v: CampaignView): JobEnvelope {
  const finished = campaignDone(v);
  const completed = v.items.filter((i) => i.status === 'completed').length;
  const failed = v.items.filter((i) => i.status !== 'completed' && FINAL.has(i.status));
  const outputs = v.items.flatMap((i) => i.outputs);
  return {
    status: finished ? (completed > 0 ? 'completed' : 'failed') : 'processing',
    handle: v.handle,
    kind: 'campaign',
    ...(outputs.length ? { outputs } : {}),
    credits_charged: v.charged_total,
    ...(failed.length
      ? { reason: failed.map((i) => `items[${i.index}] ${i.status}${i.reason ? `: ${i.reason}` : ''}`).join('; ') }
      : {}),
    details: { campaign: v },
    next_step: finished
      ? `Campaign finished: ${completed} of ${v.total} completed; outputs and per-item status in details.campaign.items.`
      : `${v.progress}. Call wait_for_jobs with handles ${JSON.stringify([v.handle])} to keep waiting.`,
  };
}
