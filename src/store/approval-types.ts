/**
 * Approvals as the store keeps them (issue 28 items 5, 6, 8). The store runs the plan and decides nothing: who
 * may decide and where a decision leaves the approval is the caller's `judge` (src/approvals/decide.ts
 * `judgeDecision`), passed in like `admit`'s rule. Types only, so every layer may import them.
 *
 * Tables (both backends, one self-contained migration step): `approvals` (one row per request awaiting
 * approval, its state a column, the record as JSON), `approval_approvers` (who may decide, for list views),
 * `approval_decisions` (one row per approval and person: the unique key makes a second decision impossible even
 * for two instances racing) and `approval_audit` (append-only: requested, approve, decline, expired).
 */

export type ApprovalState = 'pending' | 'approved' | 'declined' | 'expired';

/** How the approver proved who they are: a Slack action, the signed page, the decision tool, the MCP App card. */
export type ApprovalCarrier = 'slack' | 'page' | 'tool' | 'app';

/** One matched rule's demand (src/approvals/evaluate.ts `Requirement`). */
export interface ApprovalRequirementRecord {
  rule: string;
  approvers: readonly string[];
  required: number;
}

/** What the caller stores when a call needs an approval. */
export interface NewApprovalRecord {
  /** A random UUID (the handle is `approval:<id>`, src/approvals/handle.ts). */
  id: string;
  /** The verified caller id of who asked. */
  requester: string;
  /** Their display name, for the audit and the cards; never used to decide. */
  requesterName?: string | undefined;
  /** The tool called (`create_campaign` for a campaign). */
  tool: string;
  /**
   * Opaque to the store (any JSON): the exact platform request(s), fingerprint, quote, consent card, bundle or
   * campaign id the server needs to admit and send the call once approved.
   */
  request: unknown;
  /** From `approvalNeeded`: one per matched rule; every one must be met. */
  requirements: readonly ApprovalRequirementRecord[];
  /** Everyone who may decide (the union of the requirements' approvers, never the requester). */
  approvers: readonly string[];
  /** Names of the matched rules, in file order. */
  rules: readonly string[];
  /** The campaign (or bundle) id when the call is one: a column of the audit. */
  campaignId?: string | undefined;
  /** The consented quote in displayed credits (null: unbounded), for the audit and list views. */
  quoteCredits?: number | null | undefined;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms; at or after it no decision is taken. */
  expiresAt: number;
}

export interface ApprovalDecisionRecord {
  /** The verified caller id of the decider. */
  by: string;
  name?: string | undefined;
  decision: 'approve' | 'decline';
  carrier: ApprovalCarrier;
  /** Epoch ms. */
  at: number;
  /** The decider's words, if any (the tool's `reason`); never read by any rule. */
  reason?: string | undefined;
}

export interface ApprovalRecord extends NewApprovalRecord {
  state: ApprovalState;
  /** Oldest first. */
  decisions: ApprovalDecisionRecord[];
  /** Epoch ms of the change out of `pending`, once it happened. */
  closedAt?: number | undefined;
}

/**
 * The decision rule (`judgeDecision` adapted by the caller): the approval as stored (re-read under the lock),
 * the decision, the decision's time in; the verdict out. `ok: false` writes nothing.
 */
export interface ApprovalJudgement {
  ok: boolean;
  /** When `ok`: where the decision leaves the approval. */
  state?: 'pending' | 'approved' | 'declined' | undefined;
}
export type ApprovalJudge<V extends ApprovalJudgement> = (
  approval: ApprovalRecord,
  decision: ApprovalDecisionRecord,
  now: number,
) => V;

/** `decideApproval`'s answer: undefined approval = unknown id (nothing judged, nothing written). */
export type ApprovalDecided<V> =
  | { found: false }
  | {
      found: true;
      verdict: V;
      /** The approval after the transaction (unchanged when refused). */
      approval: ApprovalRecord;
      /** True when this decision moved the state (pending → approved/declined): the caller acts on it once. */
      changed: boolean;
    };

/** One row of the approval audit (`approval_audit`): append-only, never updated or deleted. */
export interface ApprovalAuditEvent {
  seq: number;
  /** ISO time. */
  at: string;
  event: 'requested' | 'approve' | 'decline' | 'expired';
  approvalId: string;
  requester: string;
  requesterName: string | undefined;
  tool: string;
  /** The decider (approve/decline rows). */
  approver: string | undefined;
  approverName: string | undefined;
  carrier: ApprovalCarrier | undefined;
  /** The matched rules' names. */
  rules: string[];
  campaignId: string | undefined;
  quoteCredits: number | undefined;
  /** The approval's state after this event. */
  state: ApprovalState;
}

export interface ApprovalAuditFilter {
  /** Only approvals created at or after this instant (all of their rows). */
  since?: Date | undefined;
  /** Only approvals this person asked for. */
  requester?: string | undefined;
}

/** The store's approval methods (both backends). */
export interface ApprovalStoreMethods {
  /** Inserts a `pending` approval and its `requested` audit row, in one transaction. */
  createApproval(record: NewApprovalRecord): Promise<ApprovalRecord>;
  approval(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * ONE transaction: locks the approval, reads its decisions, asks `judge`; on `ok` inserts the decision (unique
   * per approval and person), its audit row, and the new state when it changed. Two instances deciding at once
   * are ordered by the lock: the second judges the first one's outcome.
   */
  decideApproval<V extends ApprovalJudgement>(
    id: string,
    decision: ApprovalDecisionRecord,
    judge: ApprovalJudge<V>,
  ): Promise<ApprovalDecided<V>>;
  /** Pending approvals not expired at `now` that list `approverId` among their approvers, oldest first. */
  approvalsAwaiting(approverId: string, now: Date): Promise<ApprovalRecord[]>;
  /** Turns every pending approval expired at `now` into `expired` (with its audit row); returns their ids. */
  expireApprovals(now: Date): Promise<string[]>;
  /** The approval audit rows the filter selects, oldest first. */
  approvalAudit(filter?: ApprovalAuditFilter): Promise<ApprovalAuditEvent[]>;
}

/**
 * Called by a backend inside the approval's own transaction (issue 29: the events outbox), so an event exists
 * exactly when the approval's change committed.
 */
export interface ApprovalEventHooks<R = void> {
  requested(a: NewApprovalRecord): R;
  decided(a: NewApprovalRecord, decision: 'approved' | 'declined' | 'expired', at: number, by?: string): R;
}
