/**
 * The approval desk over the store (issue 28 items 5, 6, 8): the one place a decision is taken, whichever carrier
 * brought it — the signed approval page (`decide`, carrier `page`), the decision tool and the App card
 * (`decideAs`, carriers `tool`, `app`, `slack`). The rule is `judgeDecision` (decide.ts), run by the store inside
 * its transaction on the approval as it is then (`store.decideApproval`); the decider is a verified caller id,
 * never an argument. Every decision taken is an audit row (the store writes it in the same transaction).
 *
 * When a decision closes the approval (approved or declined), `onDecided` is called once, after the commit, by
 * the instance that took it: the paid path admits, re-prices and sends the held request, or returns the
 * reservation. Two instances racing on one approval: the store orders them, and only the one whose decision
 * changed the state calls the hook.
 */
import type { Logger } from '../log.js';
import type { ConsentCard } from '../paid/consent-card.js';
import type {
  ApprovalCarrier,
  ApprovalDecisionRecord,
  ApprovalRecord,
  ApprovalStoreMethods,
} from '../store/approval-types.js';
import {
  type DecisionRefusalReason,
  judgeDecision,
  type Outstanding,
  type PersonOf,
  verifiedCallerId,
} from './decide.js';
import type { ApprovalDesk, ApprovalView, DeskOutcome } from './page/desk.js';
import { decisionTakenText, type NameOf, UNKNOWN_APPROVAL } from './wording.js';

export interface ApprovalClosed {
  state: 'approved' | 'declined';
  /** The decision that closed it. */
  decision: ApprovalDecisionRecord;
}

/** Called once per approval that a decision closed, after the commit (the lead's "send it" / "return it"). */
export type OnDecided = (approval: ApprovalRecord, outcome: ApprovalClosed) => Promise<void> | void;

export interface StoreDeskDeps {
  onDecided: OnDecided;
  /** Called once per approval `expire()` turned expired (the lead's "return the reservation"), after the commit. */
  onExpired?: ((approval: ApprovalRecord) => Promise<void> | void) | undefined;
  /** The consent card the page shows (default: the stored request's `card`). */
  cardOf?: ((approval: ApprovalRecord) => ConsentCard | undefined) | undefined;
  /**
   * Which person an id is (GENPLAT_PEOPLE's `also`, src/people/same-person.ts): the requester's other ids may not
   * decide. Default: every id its own person.
   */
  personOf?: PersonOf | undefined;
  /** Display names (GENPLAT_PEOPLE), for the answers; never used to decide. */
  nameOf?: NameOf | undefined;
  now?: (() => number) | undefined;
  log?: Pick<Logger, 'error'> | undefined;
}

export type DecideOutcome =
  | {
      ok: true;
      state: 'pending' | 'approved' | 'declined';
      outstanding: readonly Outstanding[];
      approval: ApprovalRecord;
      /** What the decider is told (wording.ts). */
      text: string;
    }
  | { ok: false; reason: DecisionRefusalReason | 'unknown'; message: string };

export interface StoreApprovalDesk extends ApprovalDesk {
  /**
   * A decision by a VERIFIED caller (`ownerOf(authInfo)`, a verified chat signature) on any carrier. Refusals
   * (requester, unlisted, second decision, closed, expired, unknown) record nothing.
   */
  decideAs(
    approvalId: string,
    approver: { id: string; name?: string | undefined; carrier: ApprovalCarrier },
    decision: 'approve' | 'decline',
    reason?: string,
  ): Promise<DecideOutcome>;
  /** The approval as stored (undefined when unknown). */
  get(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** What `approverId` may decide now (list views). */
  awaiting(approverId: string): Promise<ApprovalRecord[]>;
  /**
   * Turns every pending approval past its expiry into `expired` (once, whichever instance runs it: the store's
   * UPDATE decides) and calls `onExpired` for those this call turned. Returns their ids.
   */
  expire(): Promise<string[]>;
}

type DeskStore = Pick<ApprovalStoreMethods, 'approval' | 'decideApproval' | 'approvalsAwaiting' | 'expireApprovals'>;

/** The card a stored request carries by convention (`request.card`), when the caller gives no `cardOf`. */
function storedCard(a: ApprovalRecord): ConsentCard | undefined {
  const card = (a.request as { card?: ConsentCard } | null | undefined)?.card;
  return card && typeof card === 'object' ? card : undefined;
}

export function storeApprovalDesk(store: DeskStore, deps: StoreDeskDeps): StoreApprovalDesk {
  const now = deps.now ?? Date.now;
  const cardOf = deps.cardOf ?? storedCard;
  const person = (id: string) => ({ id, name: deps.nameOf?.(id) });

  const decideAs: StoreApprovalDesk['decideAs'] = async (approvalId, approver, decision, reason) => {
    const record: ApprovalDecisionRecord = {
      by: approver.id,
      ...(approver.name ? { name: approver.name } : {}),
      decision,
      carrier: approver.carrier,
      at: now(),
      ...(reason ? { reason } : {}),
    };
    const done = await store.decideApproval(approvalId, record, (a, d, at) =>
      judgeDecision(a, { by: verifiedCallerId(d.by), decision: d.decision }, at, deps.personOf),
    );
    if (!done.found) return { ok: false, reason: 'unknown', message: UNKNOWN_APPROVAL };
    const v = done.verdict;
    if (!v.ok) return { ok: false, reason: v.reason, message: v.message };
    if (done.changed && (v.state === 'approved' || v.state === 'declined')) {
      try {
        await deps.onDecided(done.approval, { state: v.state, decision: record });
      } catch (err) {
        // The decision is committed and audited; what the hook failed to do is the paid path's to recover.
        deps.log?.error('approvals: the decision was recorded, but acting on it failed', {
          approval: approvalId,
          state: v.state,
          error: String(err),
        });
      }
    }
    return {
      ok: true,
      state: v.state,
      outstanding: v.outstanding,
      approval: done.approval,
      text: decisionTakenText(v.state, v.outstanding, deps.nameOf),
    };
  };

  return {
    async show(approvalId: string): Promise<ApprovalView | undefined> {
      const a = await store.approval(approvalId);
      const card = a && cardOf(a);
      if (!a || !card) return undefined;
      const state = a.state === 'pending' && now() >= a.expiresAt ? 'expired' : a.state;
      return {
        card,
        requester: { id: a.requester, name: a.requesterName ?? deps.nameOf?.(a.requester) },
        approvers: a.approvers.filter((id) => id !== a.requester).map(person),
        state,
        expiresAt: a.expiresAt,
      };
    },
    async decide(approvalId, approver, decision): Promise<DeskOutcome> {
      const out = await decideAs(approvalId, approver, decision);
      return out.ok ? { ok: true, state: out.state } : { ok: false, reason: out.message };
    },
    decideAs,
    get: (approvalId) => store.approval(approvalId),
    awaiting: (approverId) => store.approvalsAwaiting(approverId, new Date(now())),
    async expire() {
      const ids = await store.expireApprovals(new Date(now()));
      for (const id of ids) {
        const a = await store.approval(id);
        if (!a || !deps.onExpired) continue;
        try {
          await deps.onExpired(a);
        } catch (err) {
          deps.log?.error('approvals: the approval expired, but acting on it failed', {
            approval: id,
            error: String(err),
          });
        }
      }
      return ids;
    },
  };
}
