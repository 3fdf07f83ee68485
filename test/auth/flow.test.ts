/**
 * Issue 14 items 1-3 end to end: the SDK v2 client's own OAuth flow (401 → protected resource metadata →
 * dynamic client registration → authorize with PKCE and RFC 8707 `resource` → scripted login/consent at a real
 * OpenID provider → code exchange) gets a token, and with it the paid flow runs list → quote → confirm → wait.
 * The caller is the token's issuer + subject: another person signing in through the same host sees none of it.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcOwner } from '../../src/auth/identity.js';
import { MemoryOAuthProvider, signIn } from './browser.js';
import { type OAuthFixture, ownerOfJob, startOAuthFixture } from './fixture.js';

let f: OAuthFixture;
beforeAll(async () => {
  f = await startOAuthFixture();
});
afterAll(() => f?.close());
beforeEach(() => f.sim.log.clear());

const sc = (r: unknown) => ((r as CallToolResult).structuredContent ?? {}) as Record<string, unknown>;
const GENERATE = { method: 'POST', path: '/video/generate' } as const;

describe.each(['legacy', 'modern'] as const)('OAuth sign-in with the SDK client (%s era)', (era) => {
  it('signs in (DCR + PKCE) and runs list → quote → confirm → wait as issuer + subject', async () => {
    const alice = `alice-${era}`;
    f.idp.nextUser = alice;
    const provider = new MemoryOAuthProvider();
    const client = await signIn(f.url, provider, era);
    expect(provider.registrations).toBe(1);
    // PKCE and the resource indicator were on the authorization request the SDK built.
    const auth = provider.authorizationUrl!;
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('resource')).toBe(f.url);
    // Every scope at sign-in, from our challenge (the SDK adds offline_access when the provider offers it).
    expect(auth.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['genplat:read', 'genplat:quote', 'genplat:spend']),
    );

    const avatars = sc(await client.callTool({ name: 'list_avatars', arguments: {} }));
    expect(avatars).toHaveProperty('avatars');
    await client.listTools();
    const args = { avatar_id: 'av_ava', voice_script: `Signed in with OAuth (${era}).` };
    const quote = sc(await client.callTool({ name: 'create_talking_video', arguments: args }));
    expect(quote.status).toBe('confirmation_required');
    expect(f.sim.log.count(GENERATE)).toBe(0);
    const created = sc(
      await client.callTool({
        name: 'create_talking_video',
        arguments: { ...args, confirmation_token: quote.confirmation_token as string },
      }),
    );
    expect(created.status).toBe('submitted');
    expect(f.sim.log.count(GENERATE)).toBe(1);
    let status = '';
    for (let i = 0; i < 10 && status !== 'completed'; i++) {
      const w = sc(
        await client.callTool({ name: 'wait_for_jobs', arguments: { handles: [created.handle], max_wait_s: 10 } }),
      );
      status = (w.jobs as { status: string }[])[0]!.status;
    }
    expect(status).toBe('completed');

    // The ledger names the person (issuer + subject), not the OAuth client the host registered.
    expect(await ownerOfJob(f, created.handle as string)).toBe(oidcOwner(f.idp.issuer, alice));
    await client.close();

    // Bob signs in through the same host registration: none of Alice's jobs are his.
    f.idp.nextUser = `bob-${era}`;
    const bob = await signIn(f.url, new MemoryOAuthProvider(), era);
    const mine = sc(await bob.callTool({ name: 'list_jobs', arguments: {} }));
    expect(JSON.stringify(mine)).not.toContain(String(created.handle));
    const theirs = await bob.callTool({ name: 'get_job', arguments: { handle: created.handle } });
    expect(theirs.isError).toBe(true);
    await bob.close();
  });
});
