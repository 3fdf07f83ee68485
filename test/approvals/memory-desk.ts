/**
 * A small in-memory `ApprovalDesk` for the page's tests: our own interface (src/approvals/page/desk.ts), not a
 * real component; the lead implements it over the store. Its rule is the one the issue names: listed approvers
 * only, never the requester, one decision, none after expiry. It records every call, so a test counts both the
 * decisions recorded and the calls the page made.
 */
import type { ApprovalDesk, ApprovalPerson, ApprovalView, DeskOutcome } from '../../src/approvals/page/desk.js';
import type { ConsentCard } from '../../src/paid/consent-card.js';

export interface Decision {
  approvalId: string;
  approver: string;
  carrier: string;
  decision: 'approve' | 'decline';
}

export class MemoryDesk implements ApprovalDesk {
  private approvals = new Map<string, ApprovalView>();
  /** Every call of `decide`, refused or not. */
  calls: Decision[] = [];
  /** The decisions recorded. */
  decisions: Decision[] = [];

  constructor(private now: () => number = Date.now) {}

  add(id: string, o: { card: ConsentCard; requester: ApprovalPerson; approvers: ApprovalPerson[]; expiresAt: number }) {
    this.approvals.set(id, { ...o, state: 'pending' });
  }

  async show(id: string): Promise<ApprovalView | undefined> {
    const v = this.approvals.get(id);
    if (!v) return undefined;
    return { ...v, state: v.state === 'pending' && v.expiresAt <= this.now() ? 'expired' : v.state };
  }

  async decide(
    id: string,
    approver: { id: string; carrier: 'page' },
    decision: 'approve' | 'decline',
  ): Promise<DeskOutcome> {
    const call = { approvalId: id, approver: approver.id, carrier: approver.carrier, decision };
    this.calls.push(call);
    const v = this.approvals.get(id);
    if (!v) return { ok: false, reason: 'unknown approval' };
    if (v.state !== 'pending') return { ok: false, reason: `already ${v.state}` };
    if (v.expiresAt <= this.now()) return { ok: false, reason: 'the approval has expired' };
    if (approver.id === v.requester.id) return { ok: false, reason: 'the requester cannot approve their own call' };
    if (!v.approvers.some((a) => a.id === approver.id)) return { ok: false, reason: 'not on the approver list' };
    v.state = decision === 'approve' ? 'approved' : 'declined';
    this.decisions.push(call);
    return { ok: true, state: v.state };
  }
}
