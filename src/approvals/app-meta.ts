/**
 * What the MCP App's approval card shows (issue 28 item 6, carrier a): a result's `_meta['genplat/approval']`,
 * read by the consent card (src/apps/views/consent-card.js) to offer Approve / Decline to a viewer who may
 * decide. `may_decide` is a display hint only: the decision tool applies the real rule to the verified caller.
 */
import type { ConsentCard } from '../paid/consent-card.js';
import type { ApprovalRecord } from '../store/approval-types.js';
import { listedDeciders } from './decide.js';
import { approvalHandle } from './handle.js';

export const APPROVAL_META = 'genplat/approval';

export interface ApprovalCardMeta {
  approval: string;
  /** `pending`, `approved`, `declined`, or `expired` (a pending one past its expiry). */
  state: string;
  card?: ConsentCard | undefined;
  requester: { id: string; name?: string | undefined };
  approvers: string[];
  expires_at: string;
  may_decide: boolean;
  /** The last decision's answer, when this is the decision tool's result. */
  message?: string | undefined;
}

export function approvalCardMeta(
  a: ApprovalRecord,
  viewer: string | undefined,
  now: number,
  message?: string,
): ApprovalCardMeta {
  const state = a.state === 'pending' && now >= a.expiresAt ? 'expired' : a.state;
  const card = (a.request as { card?: ConsentCard } | null | undefined)?.card;
  const listed = listedDeciders(a);
  return {
    approval: approvalHandle(a.id),
    state,
    ...(card ? { card } : {}),
    requester: { id: a.requester, ...(a.requesterName ? { name: a.requesterName } : {}) },
    approvers: [...listed].sort(),
    expires_at: new Date(a.expiresAt).toISOString(),
    may_decide:
      state === 'pending' && viewer !== undefined && listed.has(viewer) && !a.decisions.some((d) => d.by === viewer),
    ...(message ? { message } : {}),
  };
}
