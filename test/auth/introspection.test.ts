/**
 * Opaque access tokens (issue 14 item 1, "or introspection"): the provider issues non-JWT tokens and the server
 * asks its RFC 7662 introspection endpoint, as our own confidential client, on every request. Same rules as for
 * JWTs: audience bound to us, scopes honoured, refusals before any work.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
});
