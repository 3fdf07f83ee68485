/**
 * Every sentence the approval rule says (issue 28 items 4-6): refusals of a decision, the approval-required
 * answer, "waiting for approval by …" and the refusal of a call nobody may approve. Kept apart from
 * src/paid/wording.ts so the policy module stands alone; the paid path quotes these. Names: a caller id, with
 * the person's display name in front when the caller passes `nameOf` (from GENPLAT_PEOPLE).
 */
import type { DecisionRefusalReason, Outstanding } from './decision-words.js';
import type { ApprovalNeed } from './evaluate.js';

/** caller id → display name, when the directory has one. */
export type NameOf = (id: string) => string | undefined;

const NOTHING_SENT = 'Nothing was sent and nothing was charged.';

/** `Ana Lead (slack:T1:U_LEAD)`, or the bare id. */
export function personLabel(id: string, nameOf?: NameOf): string {
  const name = nameOf?.(id);
  return name && name !== id ? `${name} (${id})` : id;
}

/** `a`, `a or b`, `a, b or c` (`and` with `all`). */
function listOf(ids: readonly string[], nameOf: NameOf | undefined, word: 'or' | 'and' = 'or'): string {
  const labels = ids.map((id) => personLabel(id, nameOf));
  return labels.length <= 1 ? (labels[0] ?? 'nobody') : `${labels.slice(0, -1).join(', ')} ${word} ${labels.at(-1)}`;
}

const approvals = (n: number) => (n === 1 ? '1 approval' : `${n} approvals`);

/** Why a decision was not taken, as the decider is told. */
export function decisionRefusal(reason: DecisionRefusalReason): string {
  switch (reason) {
    case 'requester':
      return 'You asked for this call, so you cannot approve or decline it: someone else listed by the approval policy must.';
    case 'same_person':
      return 'You asked for this call under another of your ids (the people file, GENPLAT_PEOPLE, lists both as one person), so you cannot approve or decline it: someone else listed by the approval policy must. Your decision was not recorded.';
    case 'same_credential':
      return 'This call was asked for through the same credential that is deciding now (one bot cannot be both sides of an approval); decide with your own token or sign-in, through Slack, or on the approval page. Your decision was not recorded.';
    case 'not_listed':
      return 'You are not one of the approvers the approval policy lists for this call; your decision was not recorded.';
    case 'already_decided':
      return 'You have already decided on this call; a second decision by the same person is not recorded.';
    case 'closed':
      return 'This approval has already been decided; nothing changed.';
    case 'expired':
      return 'This approval has expired; nothing was sent. The requester can make the call again to ask anew.';
  }
}

/** Who is still awaited, one clause per rule still short of approvals. */
export function waitingForApproval(outstanding: readonly Outstanding[], nameOf?: NameOf): string {
  const parts = outstanding.map(
    (o) => `${approvals(o.missing)} from ${listOf(o.waitingOn, nameOf)} (rule "${o.rule}")`,
  );
  return `Waiting for approval: ${parts.join('; ')}.`;
}

/** The answer to the requester when the policy asks for an approval first. */
export function approvalRequiredText(need: Extract<ApprovalNeed, { kind: 'approval' }>, nameOf?: NameOf): string {
  const hours = Math.round((need.expiresInMs / 3_600_000) * 10) / 10;
  const waiting = waitingForApproval(
    need.requirements.map((r) => ({ rule: r.rule, missing: r.required, waitingOn: r.approvers })),
    nameOf,
  );
  return `This call needs an approval before it is sent. ${waiting} The request expires in ${hours} h if not approved. ${NOTHING_SENT}`;
}

/** The refusal of a call whose matched rule cannot be met by anyone but the requester. */
export function cannotBeApprovedText(need: Extract<ApprovalNeed, { kind: 'impossible' }>, nameOf?: NameOf): string {
  const who =
    need.available.length === 0
      ? 'it lists nobody besides you'
      : `it lists only ${listOf(need.available, nameOf, 'and')} besides you`;
  return `Refused: rule "${need.rule}" of the approval policy needs ${approvals(need.required)} from people other than the requester, and ${who}. ${NOTHING_SENT} Ask the operator to add approvers to that rule (GENPLAT_APPROVALS).`;
}

/** Said to a decider whose decision was taken. */
export function decisionTakenText(
  state: 'pending' | 'approved' | 'declined',
  outstanding: readonly Outstanding[],
  nameOf?: NameOf,
): string {
  if (state === 'approved') return 'Approved: every approval the policy asks for is in; the call is sent now.';
  if (state === 'declined') return 'Declined: the call will not be sent, and nothing was charged.';
  return `Your approval is recorded. ${waitingForApproval(outstanding, nameOf)}`;
}

/** Said when a decision names an approval this deployment does not hold (never says whether it exists elsewhere). */
export const UNKNOWN_APPROVAL =
  'No approval with this handle is waiting here (it may belong to another deployment, or the handle is mistyped); nothing was recorded.';

/** The decision tool over stdio: one local person, who cannot be the second, proven person an approval needs. */
export const STDIO_CANNOT_DECIDE =
  'Approvals are decided by a second, signed-in person: over stdio there is only the local user, so no decision is taken here. Decide on the approval page, in Slack, or through an HTTP deployment signed in as a listed approver.';

/**
 * What the requester's views say while an approval is pending (get_job, wait_for_jobs, list_jobs, the task's
 * status message): `waiting for approval by Lead (token:lead) or token:cfo until 2026-07-28T10:00:00.000Z`. Only
 * people still awaited are named; one clause per rule still short of approvals.
 */
export function waitingForApprovalBy(outstanding: readonly Outstanding[], expiresAt: number, nameOf?: NameOf): string {
  const who = outstanding.length
    ? outstanding.map((o) => listOf(o.waitingOn, nameOf)).join(' and by ')
    : 'the listed approvers';
  return `waiting for approval by ${who} until ${new Date(expiresAt).toISOString()}`;
}

/** The requester's view once an approval was declined or ran out: no job exists. */
export function approvalClosedText(
  state: 'declined' | 'expired',
  by: readonly string[],
  expiresAt: number,
  nameOf?: NameOf,
): string {
  const why =
    state === 'declined'
      ? `Declined by ${listOf(by, nameOf, 'and')}`
      : `Expired: nobody approved it before ${new Date(expiresAt).toISOString()}`;
  return `${why}; nothing was sent or charged.`;
}
