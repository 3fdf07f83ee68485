/**
 * list_jobs' campaign rows (issue 21 item 4): a campaign is one row, its items are hidden behind it. A person
 * reading a ledger thinks "I started one campaign", not "24 talking videos"; the items are one get_job
 * (`campaign:<id>`) away. The row is built from the records as stored (a ledger read costs no platform read).
 */
import { type CampaignView, campaignEnvelope, campaignFromRecords } from './campaign-view.js';
import { type Estimate, estimate, type JobStatus } from './envelope.js';
import type { JobRecord, JobStore } from './store.js';

export interface CampaignRow {
  campaign: CampaignView;
  status: JobStatus;
  summary: string;
  estimate: Estimate;
  reason?: string | undefined;
  consent: JobRecord['consent'];
  createdAt: string;
}

/** One entry of the list: a job record, or a campaign standing for all its items. */
export type LedgerEntry = { job: JobRecord } | { campaign: CampaignRow };

/** "3 of 24 done (2 completed, 1 failed); quote 2400, charged 200, refunded 0". */
function rowSummary(v: CampaignView): string {
  const completed = v.items.filter((i) => i.status === 'completed').length;
  const ended = v.done - completed;
  const charged = v.items.reduce((s, i) => s + (i.charged ?? 0), 0);
  const refunded = v.items.reduce((s, i) => s + (i.refunded ?? 0), 0);
  return (
    `Campaign of ${v.total} items: ${v.progress} (${completed} completed, ${ended} failed or released); ` +
    `quote ${v.quote_total}, charged ${charged}, refunded ${refunded}`
  );
}

export function campaignRow(v: CampaignView, records: JobRecord[]): CampaignRow {
  const env = campaignEnvelope(v);
  // Fail closed: one item without a published price makes the campaign's total unbounded.
  const bounded = v.items.every((i) => i.bounded);
  const first = [...records].sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]!;
  return {
    campaign: v,
    status: env.status,
    summary: rowSummary(v),
    estimate: estimate(v.quote_total, `sum of ${v.total} item quotes`, { bounded }),
    ...(env.reason ? { reason: env.reason } : {}),
    consent: first.consent,
    createdAt: first.createdAt,
  };
}

/**
 * A single call sent through the outbox as a bundle of one (a call held for approval, issue 28: src/paid/hold.ts)
 * is a job, not a campaign: its record carries the call's own fingerprint, which is also its bundle's. A campaign
 * item's fingerprint is the item's, never its campaign's (the exact item list).
 */
export function isBundledCall(r: Pick<JobRecord, 'fingerprint' | 'campaign'>): boolean {
  return r.campaign !== undefined && r.campaign.total === 1 && r.fingerprint === r.campaign.fingerprint;
}

/**
 * Replaces the page's campaign items with one row per campaign, at the place of its newest item on the page.
 * The row counts every item of the campaign, also those outside the page. With a status filter, a campaign row
 * is kept only when the campaign's own status matches (a running campaign with one completed item is running).
 */
export async function groupCampaigns(
  records: JobRecord[],
  jobs: Pick<JobStore, 'bundleItems'>,
  status: JobStatus | undefined,
): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const id = r.campaign?.id;
    if (id === undefined || isBundledCall(r)) {
      out.push({ job: r });
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    // Items of one campaign share one owner (admitted in one call); the filter keeps that true if a store ever
    // held a mix, so a row never counts another caller's item.
    const items = (await jobs.bundleItems(id)).filter((i) => i.owner === r.owner);
    const row = campaignRow(campaignFromRecords(id, items), items);
    if (status === undefined || row.status === status) out.push({ campaign: row });
  }
  return out;
}
