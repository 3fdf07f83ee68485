/**
 * Opaque access tokens (issue 14 item 1, "or introspection"): the provider issues non-JWT tokens and the server
 * asks its RFC 7662 introspection endpoint, as our own confidential client (again at least every 60 s per token). Same rules as for
 * JWTs: audience bound to us, scopes honoured, refusals before any work.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VERIFIED_TTL_MS } from '../../src/auth/verify-cache.js';
import { withToken } from './browser.js';
import { FOREIGN_RESOURCE, type OAuthFixture, startOAuthFixture } from './fixture.js';

let f: OAuthFixture;
beforeAll(async () => {
  f = await startOAuthFixture({ opaque: true });
});
afterAll(() => f?.close());
beforeEach(() => f.sim.log.clear());

const status = async (token: string) =>
  (
    await fetch(f.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    })
  ).status;

describe('opaque tokens through introspection', () => {
  it('accepts a token for us: reads and quotes', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend');
    expect(token.split('.')).toHaveLength(1);
    const c = await withToken(f.url, token);
    expect((await c.callTool({ name: 'list_avatars', arguments: {} })).isError).toBeFalsy();
    const quote = await c.callTool({
      name: 'create_talking_video',
      arguments: { avatar_id: 'av_ava', voice_script: 'Opaque token.' },
    });
    expect((quote.structuredContent as { status: string }).status).toBe('confirmation_required');
    await c.close();
  });

  it('refuses a token for another audience, an unknown one, and a read-only one on a paid tool', async () => {
    expect(await status(await f.idp.clientCredentialsToken(FOREIGN_RESOURCE, 'genplat:read'))).toBe(401);
    expect(await status('opaque-token-nobody-issued-0123456789')).toBe(401);
    const c = await withToken(f.url, await f.idp.clientCredentialsToken(f.url, 'genplat:read'));
    await expect(
      c.callTool({ name: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'No.' } }),
    ).rejects.toThrow(/Insufficient scope/);
    await c.close();
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('refuses a token revoked at the provider once the verified-token window (60 s) has passed (issue 27 item 5)', async () => {
    // The token lives 10 min at the provider; the window, not the token's exp, bounds how long a revocation waits.
    expect(VERIFIED_TTL_MS).toBeLessThanOrEqual(60_000);
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read');
    expect(await status(token)).toBe(200);
    await f.idp.revoke(token);
    // Inside the window the remembered answer stands (that is the cache's point).
    expect(await status(token)).toBe(200);
    f.advance(VERIFIED_TTL_MS + 1);
    expect(await status(token)).toBe(401);
  });
});
