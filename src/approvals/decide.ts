/**
 * Who may decide an approval, and what a decision does (issue 28 items 4-6; docs/approvals.md). Pure: the
 * approval as stored, the decider and the clock in, the verdict out; the caller stores the decision only on
 * `ok: true`, in the same transaction that re-reads the approval.
 *
 * A decision is taken only from a verified identity that the approval lists and that is not the requester:
 * never the requester (whatever the file says), never an unlisted person, never a second decision by the same
 * person, never on an approval already decided or past its expiry. Approvals count toward each requirement
 * that lists their author; one decline by any listed approver declines the whole request (fail closed: a
 * person who may approve has said no, and a later approval by someone else must not override it).
 */

import type { DecisionRefusalReason, Outstanding } from './decision-words.js';
import type { Requirement } from './evaluate.js';
import { decisionRefusal } from './wording.js';

/**
 * A caller id taken from a verified request (signature or token: `ownerOf(authInfo)`, a verified chat-ops
 * signature), never from a tool argument. The brand makes a plain string from elsewhere a type error.
 */
export type VerifiedCallerId = string & { readonly __verifiedCaller: unique symbol };

/** Call only with the owner of a verified request. */
export const verifiedCallerId = (owner: string): VerifiedCallerId => owner as VerifiedCallerId;

export interface Decision {
  by: string;
  decision: 'approve' | 'decline';
  /** Epoch milliseconds. */
  at: number;
}

export type ApprovalState = 'pending' | 'approved' | 'declined' | 'expired';

/** An approval as the store keeps it. */
export interface PendingApproval {
  requester: string;
  requirements: readonly Requirement[];
  decisions: readonly Decision[];
  /** Epoch milliseconds; at or after it no decision is taken. */
  expiresAt: number;
  state: ApprovalState;
}

export type { DecisionRefusalReason, Outstanding } from './decision-words.js';

export type DecisionVerdict =
  | { ok: true; state: 'pending' | 'approved' | 'declined'; outstanding: readonly Outstanding[] }
  | { ok: false; reason: DecisionRefusalReason; message: string };

/**
 * Which person an owner id is (src/people/same-person.ts `personKeyIn`): one person's ids map to one key. The
 * default, every id its own person, is the rule without a people file.
 */
export type PersonOf = (id: string) => string;
const eachIdItsOwn: PersonOf = (id) => id;

/** Everyone who may decide: the union of the requirements' approvers, never the requester under any of their ids. */
export function listedDeciders(approval: PendingApproval, personOf: PersonOf = eachIdItsOwn): Set<string> {
  const requester = personOf(approval.requester);
  return new Set(approval.requirements.flatMap((r) => r.approvers).filter((a) => personOf(a) !== requester));
}

/**
 * Where the decisions leave the approval. Decisions by the requester (under any of their ids) or by someone
 * unlisted count for nothing (a store row written by a bug or by hand cannot approve), and only a person's first
 * decision counts: one person listed under two ids is one approval, never two.
 */
export function approvalProgress(
  approval: PendingApproval,
  now: number,
  personOf: PersonOf = eachIdItsOwn,
): { state: ApprovalState; outstanding: Outstanding[] } {
  const listed = listedDeciders(approval, personOf);
  const requester = personOf(approval.requester);
  // person → their first decision, and the id they made it with
  const first = new Map<string, Decision>();
  for (const d of approval.decisions) {
    const person = personOf(d.by);
    if (listed.has(d.by) && !first.has(person)) first.set(person, d);
  }
  const outstanding: Outstanding[] = [];
  for (const r of approval.requirements) {
    const eligible = r.approvers.filter((a) => personOf(a) !== requester);
    // An approval counts toward a requirement only under the id it lists: a rule that trusts the person's Slack id
    // is not met through their bot-delegated alias (an alias never lends approver rights: same-person.ts).
    const got = new Set(
      eligible.filter((a) => first.get(personOf(a))?.by === a && first.get(personOf(a))?.decision === 'approve'),
    ).size;
    if (got < r.required)
      outstanding.push({
        rule: r.rule,
        missing: r.required - got,
        waitingOn: eligible.filter((a) => !first.has(personOf(a))),
      });
  }
  if ([...first.values()].some((d) => d.decision === 'decline')) return { state: 'declined', outstanding };
  if (outstanding.length === 0) return { state: 'approved', outstanding };
  if (approval.state === 'expired' || now >= approval.expiresAt) return { state: 'expired', outstanding };
  return { state: 'pending', outstanding };
}

/** May `decider` decide `approval` now, and where would the decision leave it? */
/**
 * The credential whose word an owner id rests on: a delegating bot's person (`token:<bot>:<person>`,
 * `oidc:<hash>:<person>`, src/auth/identity.ts `delegatedOwner`) rests on the bot's token alone; every other owner
 * (a static token, an OAuth subject, a Slack person signed by Slack) on itself. A decision whose credential is the
 * request's would make one credential both sides of the two-person rule (review 4): a bot naming "lead" to approve
 * what it asked for "alice", or a bot approving its own person's request.
 */
export function credentialOf(owner: string): string {
  const parts = owner.split(':');
  return (parts[0] === 'token' || parts[0] === 'oidc') && parts.length > 2 ? `${parts[0]}:${parts[1]}` : owner;
}

/**
 * `personOf`: which person each id is (the people file's `also`); the requester's other ids are the requester, and
 * one person decides once whatever id they use.
 */
export function judgeDecision(
  approval: PendingApproval,
  decider: { by: VerifiedCallerId; decision: Decision['decision'] },
  now: number,
  personOf: PersonOf = eachIdItsOwn,
): DecisionVerdict {
  const refuse = (reason: DecisionRefusalReason): DecisionVerdict => ({
    ok: false,
    reason,
    message: decisionRefusal(reason),
  });
  const before = approvalProgress(approval, now, personOf);
  if (approval.state === 'approved' || approval.state === 'declined') return refuse('closed');
  if (before.state === 'approved' || before.state === 'declined') return refuse('closed');
  if (before.state === 'expired') return refuse('expired');
  if (decider.by === approval.requester) return refuse('requester');
  if (personOf(decider.by) === personOf(approval.requester)) return refuse('same_person');
  if (credentialOf(decider.by) === credentialOf(approval.requester)) return refuse('same_credential');
  if (!listedDeciders(approval, personOf).has(decider.by)) return refuse('not_listed');
  const person = personOf(decider.by);
  if (approval.decisions.some((d) => personOf(d.by) === person)) return refuse('already_decided');
  const after = approvalProgress(
    { ...approval, decisions: [...approval.decisions, { by: decider.by, decision: decider.decision, at: now }] },
    now,
    personOf,
  );
  // `after` cannot be expired: `before` was not, and the clock is the same.
  return { ok: true, state: after.state as 'pending' | 'approved' | 'declined', outstanding: after.outstanding };
}
