/** The Views' click nonce (src/apps/view-nonce.ts, issue 27 item 6): bound to its caller, expiring, ours only. */
import { describe, expect, it } from 'vitest';
import { issueViewNonce, VIEW_NONCE_TTL_MS, viewNonceProblem, withViewNonce } from '../../src/apps/view-nonce.js';
import { sign } from '../../src/signer.js';

const KEY = Buffer.alloc(32, 7);
const T = Date.parse('2026-11-28T12:00:00Z');

describe('view nonce', () => {
  it("is good for its caller until the TTL, and for no one else's", () => {
    const n = issueViewNonce(KEY, 'token:a', T);
    expect(viewNonceProblem(KEY, n, 'token:a', T + VIEW_NONCE_TTL_MS)).toBeUndefined();
    expect(viewNonceProblem(KEY, n, 'token:a', T + VIEW_NONCE_TTL_MS + 1)).toBe('expired');
    expect(viewNonceProblem(KEY, n, 'token:b', T)).toBe('not one this server gave its View');
    expect(viewNonceProblem(KEY, n, undefined, T)).toBe('not one this server gave its View');
    expect(viewNonceProblem(Buffer.alloc(32, 8), n, 'token:a', T)).toBe('not one this server gave its View');
    expect(viewNonceProblem(KEY, undefined, 'token:a', T)).toBe('missing');
  });

  it('another purpose of the one signer never passes as a nonce', () => {
    const token = sign(KEY, 'confirmation-token', `v1.${T}.x`, { bind: 'token:a' });
    expect(viewNonceProblem(KEY, token, 'token:a', T)).toBe('not one this server gave its View');
  });

  it('goes into the View as a meta tag where the marker is; a View without the marker is unchanged', () => {
    const n = issueViewNonce(KEY, undefined, T);
    expect(withViewNonce('<head><!-- VIEW_NONCE --></head>', n)).toBe(
      `<head><meta name="genplat-view-nonce" content="${n}"></head>`,
    );
    expect(n).toMatch(/^[\w.-]+$/);
    expect(withViewNonce('<head></head>', n)).toBe('<head></head>');
  });
});
