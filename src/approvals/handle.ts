/**
 * The handle of a call awaiting approval: `approval:<id>`, the id a random UUID (issue 28 item 5). What the
 * requester is told, what the decision tool takes, what the approval page's link names. The id alone proves
 * nothing: who may decide is the store's approval and the verified caller, never the handle.
 */
import { randomUUID } from 'node:crypto';

export const APPROVAL_PREFIX = 'approval:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newApprovalId(): string {
  return randomUUID();
}

export function approvalHandle(id: string): string {
  return `${APPROVAL_PREFIX}${id}`;
}

/** The id of an `approval:<uuid>` handle (whitespace and case forgiven); undefined for anything else. */
export function parseApprovalHandle(handle: string): string | undefined {
  const t = handle.trim();
  if (!t.toLowerCase().startsWith(APPROVAL_PREFIX)) return undefined;
  const id = t.slice(APPROVAL_PREFIX.length).toLowerCase();
  return UUID.test(id) ? id : undefined;
}
