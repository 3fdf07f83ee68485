/**
 * `/approve/<approvalId>.<expiresAt>.<MAC>`: the approval page's link (the one signer, purpose `approval-link`,
 * no `bind`). The expiry is carried and signed, so an expired or altered link is refused before any sign-in or
 * store read. The link is a pointer, not a capability: deciding still needs an OpenID sign-in of a listed approver.
 */
import { open, sign } from '../../signer.js';

export const APPROVE_PREFIX = '/approve/';
/** 128-bit MAC: the link travels in e-mails and chat messages, short is kind. */
const MAC_BYTES = 16;
/** Approval ids the link may carry: URL- and cookie-safe, bounded. */
const ID = /^[A-Za-z0-9_-]{1,100}$/;

export interface ApprovalLinkTarget {
  approvalId: string;
  expiresAt: number;
  /** The signed path segment after `/approve/` (what flow and session tokens are bound to). */
  token: string;
}

/** The link to send approvers. `publicUrl` = GENPLAT_PUBLIC_URL (no trailing slash). */
export function approvalLink(publicUrl: string, approvalId: string, expiresAt: number, key: Buffer): string {
  if (!ID.test(approvalId)) throw new RangeError('approval id must be 1-100 characters of A-Z a-z 0-9 _ -');
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0) throw new RangeError('expiresAt must be epoch ms');
  return `${publicUrl.replace(/\/+$/, '')}${APPROVE_PREFIX}${sign(key, 'approval-link', `${approvalId}.${expiresAt}`, { macBytes: MAC_BYTES })}`;
}

/**
 * What a `/approve/…` path names: `undefined` when it is not a link this server signed, else the target with
 * `expired` set when its time has passed (the caller refuses it; the id is still known so the page can say so).
 */
export function openApprovalLink(
  path: string,
  key: Buffer,
  now: number,
): (ApprovalLinkTarget & { expired: boolean }) | undefined {
  if (!path.startsWith(APPROVE_PREFIX)) return undefined;
  const token = path.slice(APPROVE_PREFIX.length);
  const payload = open(key, 'approval-link', token, { macBytes: MAC_BYTES });
  if (!payload) return undefined;
  const [approvalId, exp, extra] = payload.split('.');
  const expiresAt = Number(exp);
  if (extra !== undefined || !approvalId || !ID.test(approvalId) || !Number.isSafeInteger(expiresAt)) return undefined;
  return { approvalId, expiresAt, token, expired: now >= expiresAt };
}
