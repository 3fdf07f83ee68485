/**
 * The approval page's signed strings (src/approvals/page/link.ts, session.ts): the link carries its approval id
 * and expiry under the one signer's MAC; altered, expired or foreign strings are refused; the flow cookie,
 * session cookie and form token never open as one another nor as a link, and a session is bound to one approval.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APPROVE_PREFIX, approvalLink, openApprovalLink } from '../../src/approvals/page/link.js';
import {
  formToken,
  formTokenValid,
  idNonce,
  newFlow,
  newSession,
  openFlow,
  openSession,
  pkceVerifier,
} from '../../src/approvals/page/session.js';
import { sign } from '../../src/signer.js';

const KEY = randomBytes(32);
const OTHER_KEY = randomBytes(32);
const NOW = 1_800_000_000_000;
const BASE = 'https://mcp.example.com';

const pathOf = (url: string) => new URL(url).pathname;

describe('approval link', () => {
  it('opens to its approval id and expiry, and only before the expiry', () => {
    const url = approvalLink(`${BASE}/`, 'apr_123', NOW + 60_000, KEY);
    expect(url.startsWith(`${BASE}${APPROVE_PREFIX}apr_123.${NOW + 60_000}.`)).toBe(true);
    const open = openApprovalLink(pathOf(url), KEY, NOW);
    expect(open).toMatchObject({ approvalId: 'apr_123', expiresAt: NOW + 60_000, expired: false });
    expect(openApprovalLink(pathOf(url), KEY, NOW + 60_000)?.expired).toBe(true);
  });

  it('refuses an altered id, expiry or MAC, another key, and another purpose', () => {
    const path = pathOf(approvalLink(BASE, 'apr_123', NOW + 60_000, KEY));
    const [id, exp, mac] = path.slice(APPROVE_PREFIX.length).split('.') as [string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(openApprovalLink(`${APPROVE_PREFIX}apr_124.${exp}.${mac}`, KEY, NOW)).toBeUndefined();
    // A later expiry is the obvious forgery: stretch a link's life.
    expect(openApprovalLink(`${APPROVE_PREFIX}${id}.${Number(exp) + 1}.${mac}`, KEY, NOW)).toBeUndefined();
    expect(openApprovalLink(`${APPROVE_PREFIX}${id}.${exp}.${flip(mac)}`, KEY, NOW)).toBeUndefined();
    expect(openApprovalLink(path, OTHER_KEY, NOW)).toBeUndefined();
    const upload = sign(KEY, 'upload-link', `apr_123.${NOW + 60_000}`, { macBytes: 16 });
    expect(openApprovalLink(`${APPROVE_PREFIX}${upload}`, KEY, NOW)).toBeUndefined();
    expect(openApprovalLink('/upload/whatever', KEY, NOW)).toBeUndefined();
  });

  it('refuses ids that are not URL-safe', () => {
    expect(() => approvalLink(BASE, 'a/b', NOW, KEY)).toThrow(RangeError);
    expect(() => approvalLink(BASE, '', NOW, KEY)).toThrow(RangeError);
  });
});

describe('approval sign-in flow, session and form token', () => {
  const link = pathOf(approvalLink(BASE, 'apr_1', NOW + 60_000, KEY)).slice(APPROVE_PREFIX.length);

  it('a flow cookie opens until its expiry; its verifier and nonce are fixed by it and differ per flow', () => {
    const a = newFlow(KEY, link, NOW);
    const b = newFlow(KEY, link, NOW);
    expect(openFlow(KEY, a.cookie, NOW)).toEqual(a.flow);
    expect(openFlow(KEY, a.cookie, a.flow.exp)).toBeUndefined();
    expect(openFlow(OTHER_KEY, a.cookie, NOW)).toBeUndefined();
    expect(pkceVerifier(KEY, a.flow.r)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkceVerifier(KEY, a.flow.r)).toBe(pkceVerifier(KEY, a.flow.r));
    expect(pkceVerifier(KEY, a.flow.r)).not.toBe(pkceVerifier(KEY, b.flow.r));
    expect(idNonce(KEY, a.flow.r)).not.toBe(pkceVerifier(KEY, a.flow.r).slice(0, 22));
  });

  it('a session opens only for its approval, before its expiry; never as a flow or a link', () => {
    const s = newSession(KEY, { approver: 'oidc:0123456789abcdef', approvalId: 'apr_1' }, NOW);
    const open = openSession(KEY, s, 'apr_1', NOW);
    expect(open?.approver).toBe('oidc:0123456789abcdef');
    expect(openSession(KEY, s, 'apr_2', NOW)).toBeUndefined();
    expect(openSession(KEY, s, 'apr_1', open!.exp)).toBeUndefined();
    expect(openFlow(KEY, s, NOW)).toBeUndefined();
    expect(openApprovalLink(`${APPROVE_PREFIX}${s}`, KEY, NOW)).toBeUndefined();
    // A flow cookie is not a session.
    expect(openSession(KEY, newFlow(KEY, link, NOW).cookie, 'apr_1', NOW)).toBeUndefined();
  });

  it('a form token is valid only for its own session', () => {
    const one = openSession(KEY, newSession(KEY, { approver: 'oidc:a', approvalId: 'apr_1' }, NOW), 'apr_1', NOW)!;
    const two = openSession(KEY, newSession(KEY, { approver: 'oidc:a', approvalId: 'apr_1' }, NOW), 'apr_1', NOW)!;
    expect(formTokenValid(KEY, one, formToken(KEY, one))).toBe(true);
    expect(formTokenValid(KEY, two, formToken(KEY, one))).toBe(false);
    expect(formTokenValid(KEY, one, undefined)).toBe(false);
    expect(formTokenValid(KEY, one, `${formToken(KEY, one)}x`)).toBe(false);
  });
});
