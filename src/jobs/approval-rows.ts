/**
 * list_jobs' approval rows (issue 28 item 5), in the shape of its other rows (src/jobs/campaign-rows.ts):
 * - the caller's own requests still pending: the held item's (or campaign's) row becomes one row named
 *   `approval:<id>`, status `approval_required`, "waiting for approval by … until …";
 * - for an approver, each request awaiting their decision (`Store.approvalsAwaiting`), marked
 *   `awaiting_your_decision: true`, first in the list (they are what the approver must act on).
 * Built from the store alone: no platform read.
 */
import { approvalHandle } from '../approvals/handle.js';
import { type NameOf, personLabel } from '../approvals/wording.js';
import type { ApprovalRecord } from '../store/approval-types.js';
import { heldApprovalId, heldRequestOf, shownState, waitingText } from './approval-view.js';
import type { LedgerEntry } from './campaign-rows.js';
import type { Estimate } from './envelope.js';
import type { JobStore } from './store.js';

export interface ApprovalRow {
  handle: string;
  tool: string;
  status: 'approval_required';
  summary: string;
  estimate?: Estimate | undefined;
  awaiting_your_decision?: true | undefined;
  created_at: string;
  outputs: [];
}

function row(a: ApprovalRecord, summary: string, mine: boolean): ApprovalRow {
  const estimate = heldRequestOf(a)?.estimate;
  return {
    handle: approvalHandle(a.id),
    tool: a.tool,
    status: 'approval_required',
    summary,
    ...(estimate ? { estimate } : {}),
    ...(mine ? {} : { awaiting_your_decision: true as const }),
    created_at: new Date(a.createdAt).toISOString(),
    outputs: [],
  };
}

/**
 * The approval (pending at `now`) an entry of the caller's list is held for, if any: a held job record, or a
 * campaign with a held item.
 */
async function pendingApprovalOf(
  e: LedgerEntry,
  jobs: Pick<JobStore, 'approval' | 'bundleItems'>,
  now: number,
): Promise<ApprovalRecord | undefined> {
  const records = 'job' in e ? [e.job] : await jobs.bundleItems(e.campaign.campaign.campaign);
  const id = records.map(heldApprovalId).find((i) => i !== undefined);
  const a = id === undefined ? undefined : await jobs.approval(id);
  return a && shownState(a, now) === 'pending' ? a : undefined;
}

/** Replaces each entry held for a pending approval by that approval's row (one row per approval). */
export async function withPendingApprovals<T>(
  entries: LedgerEntry[],
  toRow: (e: LedgerEntry) => T,
  jobs: Pick<JobStore, 'approval' | 'bundleItems'>,
  opts: { now: number; nameOf?: NameOf | undefined },
): Promise<(T | ApprovalRow)[]> {
  const out: (T | ApprovalRow)[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const a = await pendingApprovalOf(e, jobs, opts.now);
    if (!a) {
      out.push(toRow(e));
      continue;
    }
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    const what = 'job' in e ? e.job.summary : e.campaign.summary;
    out.push(row(a, `${what}; nothing sent yet: ${waitingText(a, opts.now, opts.nameOf)}`, true));
  }
  return out;
}

/** The requests awaiting this approver's decision (HTTP only: over stdio nobody is a second person). */
export async function awaitingDecisionRows(
  jobs: Pick<JobStore, 'approvalsAwaiting'>,
  owner: string | undefined,
  opts: { now: number; nameOf?: NameOf | undefined },
): Promise<ApprovalRow[]> {
  if (owner === undefined) return [];
  const awaiting = await jobs.approvalsAwaiting(owner, new Date(opts.now));
  return awaiting
    .filter((a) => !a.decisions.some((d) => d.by === owner))
    .map((a) => {
      const who = personLabel(a.requester, opts.nameOf);
      const until = new Date(a.expiresAt).toISOString();
      return row(
        a,
        `${who} asks to run ${a.tool}: awaiting your decision until ${until} (decide_approval with approval "${approvalHandle(a.id)}")`,
        false,
      );
    })
    .reverse();
}
