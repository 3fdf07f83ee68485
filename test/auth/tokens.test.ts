/**
 * Issue 14 item 1 (the resource server's refusals) and item 6 (static tokens beside OAuth). Every refused request
 * reaches nothing: the simulator log stays empty. Tokens come from the real provider (./idp.ts), except the
 * forged one, which is signed with a key the provider never had.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenHashOwner } from '../../src/auth/identity.js';
import { withToken } from './browser.js';
import {
  BOT_TOKEN,
  FOREIGN_RESOURCE,
  LEGACY_TOKEN,
  type OAuthFixture,
  ownerOfJob,
  startOAuthFixture,
} from './fixture.js';

let f: OAuthFixture;
beforeAll(async () => {
  f = await startOAuthFixture();
});
afterAll(() => f?.close());
beforeEach(() => f.sim.log.clear());

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

async function post(url: string, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    },
    body: INIT,
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.text() };
}

const metadataUrl = () => `${new URL(f.url).origin}/.well-known/oauth-protected-resource/mcp`;

describe('protected resource metadata (RFC 9728)', () => {
  it('names the issuer, our resource and the three scopes, at the path-aware and the root location', async () => {
    for (const url of [metadataUrl(), `${new URL(f.url).origin}/.well-known/oauth-protected-resource`]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: f.url,
        authorization_servers: [f.idp.issuer],
        scopes_supported: ['genplat:read', 'genplat:quote', 'genplat:spend'],
      });
    }
  });
});

describe('401 with a challenge', () => {
  it.each([
    ['no token', undefined],
    ['a garbage token', 'not-a-token-at-all-0123456789'],
    ['a JWT-shaped garbage token', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln'],
  ])('%s', async (_name, token) => {
    const r = await post(f.url, token);
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(/^Bearer /);
    expect(r.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(r.challenge).toContain('scope="genplat:read genplat:quote genplat:spend"');
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('a real token for another resource (audience) of the same provider', async () => {
    const foreign = await f.idp.clientCredentialsToken(FOREIGN_RESOURCE, 'genplat:read genplat:spend');
    const r = await post(f.url, foreign);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('invalid_token');
    expect(r.body).toContain('not issued for this resource');
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('an expired token (the same token works before it expires)', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend');
    expect((await post(f.url, token)).status).toBe(200);
    // The provider issues 10-minute tokens; 11 minutes later (past our 30 s skew allowance) it is refused.
    f.advance(11 * 60_000);
    try {
      const r = await post(f.url, token);
      expect(r.status).toBe(401);
      expect(r.body).toContain('expired');
    } finally {
      f.advance(-11 * 60_000);
    }
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('a token with the right claims signed by a key the provider never had', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const forged = await new SignJWT({ scope: 'genplat:read genplat:spend' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1', typ: 'at+jwt' })
      .setIssuer(f.idp.issuer)
      .setSubject('mallory')
      .setAudience(f.url)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const r = await post(f.url, forged);
    expect(r.status).toBe(401);
    expect(f.sim.log.entries()).toHaveLength(0);
  });

  it('a token of ours granting neither scope gets 403 insufficient_scope', async () => {
    const token = await f.idp.clientCredentialsToken(f.url, '');
    const r = await post(f.url, token);
    expect(r.status).toBe(403);
    expect(r.challenge).toContain('insufficient_scope');
    expect(f.sim.log.entries()).toHaveLength(0);
  });
});

describe('static tokens beside OAuth', () => {
  it('a named token is caller token:<name> on /mcp; an unnamed one keeps its 0.1 owner id', async () => {
    for (const [token, owner] of [
      [BOT_TOKEN, 'token:bot'],
      [LEGACY_TOKEN, tokenHashOwner(LEGACY_TOKEN)],
    ] as const) {
      const c = await withToken(f.url, token);
      const args = { avatar_id: 'av_ava', voice_script: `Static caller ${owner}.` };
      const quote = (await c.callTool({ name: 'create_talking_video', arguments: args })).structuredContent as {
        confirmation_token: string;
      };
      const created = (
        await c.callTool({
          name: 'create_talking_video',
          arguments: { ...args, confirmation_token: quote.confirmation_token },
        })
      ).structuredContent as { status: string; handle: string };
      expect(created.status).toBe('submitted');
      expect(await ownerOfJob(f, created.handle)).toBe(owner);
      await c.close();
    }
  });

  it('/static/mcp takes static tokens and advertises no OAuth (hosts that drop headers when they see it)', async () => {
    const staticUrl = f.rt.http.staticUrl;
    const c = await withToken(staticUrl, BOT_TOKEN);
    expect((await c.callTool({ name: 'list_avatars', arguments: {} })).isError).toBeFalsy();
    await c.close();
    const refused = await post(staticUrl, undefined);
    expect(refused.status).toBe(401);
    expect(refused.challenge).not.toContain('resource_metadata');
    // An OAuth token is not a static token: refused here, accepted on /mcp.
    const oauth = await f.idp.clientCredentialsToken(f.url, 'genplat:read genplat:spend');
    expect((await post(staticUrl, oauth)).status).toBe(401);
    expect((await post(f.url, oauth)).status).toBe(200);
    expect((await fetch(`${new URL(f.url).origin}/.well-known/oauth-protected-resource/static/mcp`)).status).toBe(404);
  });
});
