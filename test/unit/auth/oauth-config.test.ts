/**
 * OAuth settings and named static tokens (issue 14 items 1, 2, 6): what the operator writes, what the server
 * understands, and every mistake named before start.
 */
import { describe, expect, it } from 'vitest';
import { oidcOwner } from '../../../src/auth/identity.js';
import { parseHttpTokens, parseOAuthConfig } from '../../../src/auth/oauth-config.js';
import { grants, scopeChallengeFor } from '../../../src/auth/scopes.js';
import { resourceOf, scopesOf } from '../../../src/auth/token-verifier.js';
import { loadConfig, parseCli } from '../../../src/config.js';

const T = 'abcdefghijklmnop-0123';

describe('parseOAuthConfig', () => {
  it('is off without an issuer, and says so when other OAuth settings are set', () => {
    const problems: string[] = [];
    expect(parseOAuthConfig({}, undefined, problems)).toBeUndefined();
    expect(problems).toEqual([]);
    expect(parseOAuthConfig({ GENPLAT_OAUTH_RESOURCE: 'https://a.example/mcp' }, undefined, problems)).toBeUndefined();
    expect(problems.join()).toMatch(/without GENPLAT_OAUTH_ISSUER/);
  });

  it('derives the resource from GENPLAT_PUBLIC_URL and the audience from the resource', () => {
    const problems: string[] = [];
    const c = parseOAuthConfig(
      { GENPLAT_OAUTH_ISSUER: 'https://tenant.auth0.com/' },
      'https://mcp.example.com',
      problems,
    );
    expect(problems).toEqual([]);
    expect(c).toEqual({
      issuer: 'https://tenant.auth0.com/',
      resource: 'https://mcp.example.com/mcp',
      audience: 'https://mcp.example.com/mcp',
      jwksUrl: undefined,
      introspection: undefined,
      groupsClaim: 'groups',
    });
  });

  it('GENPLAT_OAUTH_GROUPS_CLAIM names the groups claim (teams for budgets); a name with spaces is refused', () => {
    const problems: string[] = [];
    const env = {
      GENPLAT_OAUTH_ISSUER: 'https://idp.example.com',
      GENPLAT_OAUTH_RESOURCE: 'https://m.example.com/mcp',
    };
    expect(
      parseOAuthConfig({ ...env, GENPLAT_OAUTH_GROUPS_CLAIM: 'cognito:groups' }, undefined, problems),
    ).toMatchObject({ groupsClaim: 'cognito:groups' });
    expect(parseOAuthConfig({ ...env, GENPLAT_OAUTH_GROUPS_CLAIM: 'my groups' }, undefined, problems)).toBeUndefined();
    expect(problems).toEqual([
      'GENPLAT_OAUTH_GROUPS_CLAIM must be a claim name: 1-200 printable characters without spaces',
    ]);
  });

  it.each([
    [{ GENPLAT_OAUTH_ISSUER: 'https://idp.example' }, /GENPLAT_OAUTH_RESOURCE .*or GENPLAT_PUBLIC_URL/],
    [{ GENPLAT_OAUTH_ISSUER: 'http://idp.example', GENPLAT_OAUTH_RESOURCE: 'https://a/mcp' }, /ISSUER must use https/],
    [
      { GENPLAT_OAUTH_ISSUER: 'https://idp.example', GENPLAT_OAUTH_RESOURCE: 'http://a.example/mcp' },
      /RESOURCE must use https/,
    ],
    [{ GENPLAT_OAUTH_ISSUER: 'https://idp.example?x=1', GENPLAT_OAUTH_RESOURCE: 'https://a/mcp' }, /query/],
    [
      {
        GENPLAT_OAUTH_ISSUER: 'https://idp.example',
        GENPLAT_OAUTH_RESOURCE: 'https://a/mcp',
        GENPLAT_OAUTH_AUDIENCE: 'not a uri',
      },
      /AUDIENCE must be an absolute URI/,
    ],
    [
      {
        GENPLAT_OAUTH_ISSUER: 'https://idp.example',
        GENPLAT_OAUTH_RESOURCE: 'https://a/mcp',
        GENPLAT_OAUTH_INTROSPECTION_URL: 'https://idp.example/introspect',
      },
      /needs GENPLAT_OAUTH_CLIENT_ID and GENPLAT_OAUTH_CLIENT_SECRET/,
    ],
  ])('refuses %j', (env, rule) => {
    const problems: string[] = [];
    expect(parseOAuthConfig(env, undefined, problems)).toBeUndefined();
    expect(problems.join('\n')).toMatch(rule);
  });

  it('allows http for a loopback provider (tests, a provider on the same machine)', () => {
    const problems: string[] = [];
    const c = parseOAuthConfig(
      { GENPLAT_OAUTH_ISSUER: 'http://127.0.0.1:9000', GENPLAT_OAUTH_RESOURCE: 'http://localhost:8787/mcp' },
      undefined,
      problems,
    );
    expect(problems).toEqual([]);
    expect(c?.resource).toBe('http://localhost:8787/mcp');
  });

  it('never quotes the client secret', () => {
    const secret = 'super-secret-value-123456';
    expect(() =>
      loadConfig(parseCli(['--sandbox', '--http']), {
        GENPLAT_OAUTH_ISSUER: 'ftp://idp.example',
        GENPLAT_OAUTH_INTROSPECTION_URL: 'https://idp.example/i',
        GENPLAT_OAUTH_CLIENT_SECRET: secret,
      }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secret) }));
  });
});

describe('parseHttpTokens', () => {
  it('reads named and unnamed entries', () => {
    const problems: string[] = [];
    expect(parseHttpTokens(`bot=${T}, ${T}x ,ci=${T}y`, problems)).toEqual({
      tokens: [T, `${T}x`, `${T}y`],
      names: { bot: T, ci: `${T}y` },
    });
    expect(problems).toEqual([]);
  });

  it.each([
    [`bot=short`, /at least 16 characters.*"bot"/],
    [`bot=${T},bot=${T}z`, /"bot" is used twice/],
    [`a=${T},b=${T}`, /repeats another named entry's token/],
  ])('refuses %s without quoting a token', (raw, rule) => {
    const problems: string[] = [];
    parseHttpTokens(raw, problems);
    expect(problems.join('\n')).toMatch(rule);
    expect(problems.join('\n')).not.toContain(T);
  });
});

describe('scopes and claims', () => {
  it('spend implies read; read does not imply spend', () => {
    expect(grants(['genplat:spend'], 'read')).toBe(true);
    expect(grants(['genplat:read'], 'spend')).toBe(false);
    expect(grants(['openid'], 'read')).toBe(false);
    const spend = scopeChallengeFor('spend');
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call' };
    const info = (scopes: string[]) => ({ token: '', clientId: '', scopes });
    expect(spend({ request, authInfo: info(['genplat:read']) })).toMatchObject({
      scopes: ['genplat:read', 'genplat:quote', 'genplat:spend'],
    });
    // A quote-only token is refused the tools that are consent themselves (the App's Confirm, decide_approval).
    expect(spend({ request, authInfo: info(['genplat:quote']) })).toMatchObject({
      errorDescription: expect.stringMatching(/needs the genplat:spend scope/),
    });
    expect(spend({ request, authInfo: info(['genplat:spend']) })).toBeUndefined();
    // stdio / in-memory: no OAuth at all.
    expect(spend({ request })).toBeUndefined();
  });

  it('reads scope (RFC 9068) and scp (Entra) claims, and picks our audience out of several', () => {
    expect(scopesOf({ scope: 'genplat:read  genplat:spend' })).toEqual(['genplat:read', 'genplat:spend']);
    expect(scopesOf({ scp: ['genplat:read'] })).toEqual(['genplat:read']);
    expect(resourceOf(['https://other', 'https://mcp.example.com/mcp'], 'https://mcp.example.com/mcp')?.href).toBe(
      'https://mcp.example.com/mcp',
    );
    // Exactly our string (issue 19 item 3): no trailing-slash, dot-segment or IPv4-spelling leniency.
    for (const other of ['https://mcp.example.com/mcp/', 'https://mcp.example.com/x/%2e%2e/mcp', 'https://other/']) {
      expect(resourceOf(other, 'https://mcp.example.com/mcp'), other).toBeUndefined();
    }
    expect(resourceOf(undefined, 'https://mcp.example.com/mcp')).toBeUndefined();
  });

  it('identity is issuer + subject', () => {
    expect(oidcOwner('https://a', 'alice')).toMatch(/^oidc:[0-9a-f]{16}$/);
    expect(oidcOwner('https://a', 'alice')).not.toBe(oidcOwner('https://b', 'alice'));
    expect(oidcOwner('https://a', 'alice')).not.toBe(oidcOwner('https://a', 'bob'));
  });
});
