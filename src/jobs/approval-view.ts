/**
 * The read side of a call held for approval (issue 28 item 5): what `approval:<id>` — and the held items' own
 * `submission:` / `campaign:` handles — show in get_job, wait_for_jobs, list_jobs and the 2026 task.
 *
 * Who sees it: the requester and the approvers the record lists; anyone else gets the answer of a job nobody
 * has (NOT_YOUR_JOB), so an approval id cannot be probed. On stdio (no owner) the one user sees every approval.
 *
 * What it says, by the approval's state (a pending approval past its expiry already reads as expired: no
 * decision can be taken any more, whether or not the expiry sweep has run):
 * - pending → status `approval_required`, "waiting for approval by <names> until <time>", approvers, expiry,
 *   the estimate;
 * - approved → the envelope of what was sent: a call → its item's job (as get_job on that handle), a campaign →
 *   the campaign view; `details.approval` still names the approval. An approver who may see the approval sees
 *   what it led to too (they consented to its spending);
 * - declined or expired → status `declined` (the envelope's existing "nothing was sent" status; which of the
 *   two is in `details.approval.state`), reason "… nothing was sent or charged".
 *
 * The held request's shape is the write side's contract (src/paid/): `request` = `{ bundleId, itemIds, kind:
 * 'call' | 'campaign', estimate, … }`, each held item's `held.reason` = `approval:<id>`.
 */
import { approvalProgress } from '../approvals/decide.js';
import { APPROVAL_PREFIX, approvalHandle, parseApprovalHandle } from '../approvals/handle.js';
import { approvalClosedText, type NameOf, waitingForApprovalBy } from '../approvals/wording.js';
import { UserInputError } from '../errors.js';
import type { PeopleDirectory } from '../people/people-file.js';
import { personEntry } from '../people/same-person.js';
import type { ApprovalRecord } from '../store/approval-types.js';
import { CAMPAIGN_HANDLE_PREFIX, campaignEnvelope, readCampaign } from './campaign-view.js';
import { type Estimate, EstimateSchema, type JobEnvelope } from './envelope.js';
import { decodeHandle } from './handle.js';
import { NOT_YOUR_JOB, resolveJob } from './owner.js';
import type { Poller } from './poller.js';
import { viewEnvelope } from './status.js';
import type { JobRecord, JobStore } from './store.js';

export function isApprovalHandle(handle: string): boolean {
  return handle.trim().toLowerCase().startsWith(APPROVAL_PREFIX);
}

/** The part of the write side's `request` JSON the views read. */
export interface HeldRequest {
  bundleId: string;
  itemIds: string[];
  kind: 'call' | 'campaign';
  estimate?: Estimate | undefined;
}

/** The held request of an approval, or undefined when its JSON is not the write side's shape. */
export function heldRequestOf(a: ApprovalRecord): HeldRequest | undefined {
  const r = a.request as Record<string, unknown> | null | undefined;
  if (!r || typeof r !== 'object') return undefined;
  const { bundleId, itemIds, kind } = r;
  if (typeof bundleId !== 'string' || (kind !== 'call' && kind !== 'campaign')) return undefined;
  if (!Array.isArray(itemIds) || !itemIds.every((i) => typeof i === 'string')) return undefined;
  const est = EstimateSchema.safeParse(r.estimate);
  return { bundleId, itemIds: itemIds as string[], kind, ...(est.success ? { estimate: est.data } : {}) };
}

export interface ApprovalViewDeps {
  jobs: JobStore;
  poller: Poller;
  /** HTTP: the verified caller; undefined on stdio. */
  owner: string | undefined;
  nameOf?: NameOf | undefined;
  now?: (() => number) | undefined;
}

/** The people directory's names (GENPLAT_PEOPLE), for the views' sentences. */
export function nameOfPeople(config: { people: PeopleDirectory }): NameOf {
  // Through the person's other ids too (the people file's `also`): an alias is named as its person.
  return (id) => personEntry(config.people, id)?.name;
}

/**
 * The approval `handle` names, when this caller may see it.
 * @throws UserInputError(field, NOT_YOUR_JOB) for a malformed or unknown handle and for someone else's approval.
 */
export async function approvalFor(
  jobs: Pick<JobStore, 'approval'>,
  owner: string | undefined,
  handle: string,
  field: string,
): Promise<ApprovalRecord> {
  const id = parseApprovalHandle(handle);
  const a = id === undefined ? undefined : await jobs.approval(id);
  if (!a || !maySee(a, owner)) throw new UserInputError(field, NOT_YOUR_JOB);
  return a;
}

function maySee(a: ApprovalRecord, owner: string | undefined): boolean {
  return owner === undefined || a.requester === owner || a.approvers.includes(owner);
}

/** The state a view shows: a pending approval at or past its expiry can no longer be decided, so it is expired. */
export function shownState(a: ApprovalRecord, now: number): ApprovalRecord['state'] {
  return a.state === 'pending' && now >= a.expiresAt ? 'expired' : a.state;
}

/** "waiting for approval by … until …" for a pending approval (who is still awaited). */
export function waitingText(a: ApprovalRecord, now: number, nameOf?: NameOf): string {
  return waitingForApprovalBy(approvalProgress(a, now).outstanding, a.expiresAt, nameOf);
}

/**
 * `details` of an approval's envelope, in the shape the write side's `approval_required` answer uses (src/paid/
 * hold.ts: `approval` = the id, `approvers` with names, `rules`, `campaign` + `items` for a campaign), plus what
 * only a later look knows: `approval_state`, who is still awaited, and whether the caller is awaited.
 */
function approvalDetails(
  a: ApprovalRecord,
  state: ApprovalRecord['state'],
  opts: { owner: string | undefined; now: number; nameOf?: NameOf | undefined },
) {
  const req = heldRequestOf(a);
  const outstanding = approvalProgress(a, opts.now).outstanding;
  const decided = opts.owner !== undefined && a.decisions.some((d) => d.by === opts.owner);
  const awaited = state === 'pending' && opts.owner !== undefined && a.approvers.includes(opts.owner) && !decided;
  return {
    approval: a.id,
    approval_state: state,
    requester: a.requester,
    approvers: a.approvers.map((id) => {
      const name = opts.nameOf?.(id);
      return { id, ...(name ? { name } : {}) };
    }),
    rules: [...a.rules],
    ...(state === 'pending' ? { waiting_on: [...new Set(outstanding.flatMap((o) => o.waitingOn))] } : {}),
    ...(req?.kind === 'campaign' ? { campaign: req.bundleId, items: req.itemIds.length } : {}),
    ...(awaited ? { awaiting_your_decision: true } : {}),
  };
}

/**
 * The envelope of an approval that is not (or not yet seen) approved: pending, declined or expired. `shown` is
 * the handle the caller asked with (`approval:<id>`, or a held item's or campaign's own handle), `kind` its kind.
 */
export function approvalStateEnvelope(
  a: ApprovalRecord,
  opts: { shown: string; kind: string; owner: string | undefined; now: number; nameOf?: NameOf | undefined },
): JobEnvelope {
  const state = shownState(a, opts.now);
  const estimate = heldRequestOf(a)?.estimate;
  const base = {
    handle: opts.shown,
    kind: opts.kind,
    ...(estimate ? { estimate } : {}),
    expires_at: new Date(a.expiresAt).toISOString(),
    details: approvalDetails(a, state, opts),
  };
  if (state === 'declined' || state === 'expired') {
    const by = a.decisions.filter((d) => d.decision === 'decline').map((d) => d.by);
    const text = approvalClosedText(state, by, a.expiresAt, opts.nameOf);
    return {
      status: 'declined',
      ...base,
      reason: text,
      next_step: `${text} Tell the user; to ask again, make the call again (it needs a new approval).`,
    };
  }
  const waiting = waitingText(a, opts.now, opts.nameOf);
  return {
    status: 'approval_required',
    ...base,
    reason: `Nothing was sent yet: ${waiting}.`,
    next_step:
      `Nothing was sent yet: ${waiting}. Tell the user; call wait_for_jobs with handles ` +
      `${JSON.stringify([opts.shown])} to wait for the decision.`,
  };
}

/**
 * get_job's read of one job record, under the record's owner (the caller already decided who may look): a sent
 * item is read by its platform reference, an unsent one from the store.
 */
export async function followRecord(deps: ApprovalViewDeps, rec: JobRecord, field: string): Promise<JobEnvelope> {
  const asked = decodeHandle(rec.handle);
  if (!asked) throw new UserInputError(field, NOT_YOUR_JOB);
  const job = await resolveJob(deps.jobs, rec.owner, asked, field);
  const { view } = await deps.poller.read(job.ref);
  return viewEnvelope(job.handle, job.ref, view, (await deps.jobs.getByRef(job.ref)) ?? rec);
}

/** What an approved request led to: the call's job, or the campaign. */
async function followApproved(
  deps: ApprovalViewDeps,
  a: ApprovalRecord,
  req: HeldRequest,
  field: string,
): Promise<JobEnvelope> {
  let env: JobEnvelope;
  if (req.kind === 'campaign') {
    const handle = `${CAMPAIGN_HANDLE_PREFIX}${req.bundleId}`;
    env = campaignEnvelope(await readCampaign(deps.jobs, deps.poller, handle, a.requester, field));
  } else {
    const rec = req.itemIds[0] === undefined ? undefined : await deps.jobs.get(req.itemIds[0]);
    if (!rec || rec.owner !== a.requester) throw new UserInputError(field, NOT_YOUR_JOB);
    env = await followRecord(deps, rec, field);
  }
  return { ...env, details: { ...env.details, approval: a.id, approval_state: 'approved' } };
}

/**
 * The envelope of `approval:<id>` for this caller.
 * @throws UserInputError(field, NOT_YOUR_JOB) as `approvalFor`.
 */
export async function approvalEnvelope(deps: ApprovalViewDeps, handle: string, field: string): Promise<JobEnvelope> {
  const a = await approvalFor(deps.jobs, deps.owner, handle, field);
  return envelopeOfApproval(deps, a, field);
}

export async function envelopeOfApproval(
  deps: ApprovalViewDeps,
  a: ApprovalRecord,
  field: string,
): Promise<JobEnvelope> {
  const now = (deps.now ?? Date.now)();
  const req = heldRequestOf(a);
  const items = req ? await Promise.all(req.itemIds.map((id) => deps.jobs.get(id))) : [];
  const mine = items.filter((r): r is JobRecord => r !== undefined && r.owner === a.requester);
  // The kind the write side's answer named: the call's job kind, or `campaign`.
  const kind = req?.kind === 'campaign' ? 'campaign' : (mine[0]?.kind ?? 'approval');
  const show = (b: ApprovalRecord) =>
    approvalStateEnvelope(b, { shown: approvalHandle(b.id), kind, owner: deps.owner, now, nameOf: deps.nameOf });
  if (a.state !== 'approved' || !req) return show(a);
  // Approved, then re-priced higher: the items went back for a new approval (still held). That one is what the
  // call waits for now, under its own handle.
  const again = mine.map(heldApprovalId).find((id) => id !== undefined && id !== a.id);
  const b = again === undefined ? undefined : await deps.jobs.approval(again);
  if (b && b.state !== 'approved' && maySee(b, deps.owner)) return show(b);
  return followApproved(deps, a, req, field);
}

/** The approval a held record waits for (`held.reason` = `approval:<id>`), if any. */
export function heldApprovalId(rec: Pick<JobRecord, 'held'> | undefined): string | undefined {
  return rec?.held ? parseApprovalHandle(rec.held.reason) : undefined;
}

/**
 * For a held item's or campaign's own handle: the approval envelope to show instead of "queued", while the
 * approval is not approved (pending, declined, expired). Undefined when nothing is held for an approval, or it
 * was approved (the job view then says what happens: the items are unheld and sent).
 */
export async function heldEnvelope(
  deps: Pick<ApprovalViewDeps, 'jobs' | 'owner' | 'nameOf' | 'now'>,
  records: readonly JobRecord[],
  shown: string,
  kind: string,
): Promise<JobEnvelope | undefined> {
  const id = records.map(heldApprovalId).find((i) => i !== undefined);
  if (id === undefined) return undefined;
  const a = await deps.jobs.approval(id);
  if (!a || a.state === 'approved') return undefined;
  // The caller owns the records (checked by the caller's resolve); the approval's requester is that owner.
  return approvalStateEnvelope(a, {
    shown,
    kind,
    owner: deps.owner,
    now: (deps.now ?? Date.now)(),
    nameOf: deps.nameOf,
  });
}
