/**
 * The approval page's only view of approvals (issue 28 item 6, carrier c): what the page shows and where it hands
 * a decision. The lead implements it over the store; the page never reads or writes approvals otherwise. The desk
 * owns the rule (listed approvers only, never the requester, one decision, before expiry): the page only proves
 * who the approver is (an OpenID sign-in) and shows the card.
 */
import type { ConsentCard } from '../../paid/consent-card.js';

export interface ApprovalPerson {
  /** The caller id, as owners are spelled everywhere (`oidc:<16 hex>` for an OpenID sign-in: `oidcOwner`). */
  id: string;
  /** How the page names them (a display name or e-mail); never used to decide anything. */
  name?: string | undefined;
}

/** An approval as the page shows it. */
export interface ApprovalView {
  /** The consent card of the call awaiting approval (src/paid/consent-card.ts: the same facts as the form/App). */
  card: ConsentCard;
  requester: ApprovalPerson;
  /** Who may approve (the requester never may, even when listed). */
  approvers: ApprovalPerson[];
  /** `pending` while a decision is awaited; anything else (approved, declined, expired, …) is final. */
  state: string;
  /** Epoch ms after which no decision is accepted. */
  expiresAt: number;
}

export type DeskOutcome = { ok: true; state: string } | { ok: false; reason: string };

export interface ApprovalDesk {
  /** The approval as the page shows it, or undefined when unknown. */
  show(approvalId: string): Promise<ApprovalView | undefined>;
  /**
   * Records a decision by a VERIFIED approver (the caller id from the page's OpenID sign-in, never from a form
   * field). Returns the new state, or why it was refused (requester, unlisted, second decision, expired, already
   * decided): a sentence the page shows as it is.
   */
  decide(
    approvalId: string,
    approver: { id: string; name?: string | undefined; carrier: 'page' },
    decision: 'approve' | 'decline',
  ): Promise<DeskOutcome>;
}

/** The page's display hint only (whether to offer the buttons); `decide` applies the real rule. */
export function mayDecide(view: ApprovalView, who: string): boolean {
  return who !== view.requester.id && view.approvers.some((a) => a.id === who);
}
