/**
 * GENPLAT_HTTP_TOKEN_SCOPES (issue 30 item 6): a level per named static token, validated at start with the field
 * and the rule named and no token quoted; a token it does not list keeps spending (backwards compatible).
 */
import { describe, expect, it } from 'vitest';
import { staticAuthInfo } from '../../../src/auth/identity.js';
import { accessOf, grants, scopesFor } from '../../../src/auth/scopes.js';
import { tokenAccess } from '../../../src/auth/token-scopes.js';
import { loadConfig, parseCli } from '../../../src/config.js';

const TOKENS = 'planner=planner-token-0123456789,viewer=viewer-token-0123456789,bot=bot-token-0123456789';
const load = (env: Record<string, string>) => loadConfig(parseCli(['--http', '--sandbox']), env);
const problems = (env: Record<string, string>) => {
  try {
    load(env);
    return [];
  } catch (err) {
    return (err as { problems: string[] }).problems;
  }
};

describe('GENPLAT_HTTP_TOKEN_SCOPES', () => {
  it('gives each listed named token its level; every other token spends', () => {
    const c = load({ GENPLAT_HTTP_TOKEN: TOKENS, GENPLAT_HTTP_TOKEN_SCOPES: 'planner=quote, viewer=read' });
    const scopes = c.http.tokenScopes ?? {};
    expect(scopes).toEqual({ planner: 'quote', viewer: 'read' });
    expect(tokenAccess(scopes, 'token:planner')).toBe('quote');
    expect(tokenAccess(scopes, 'token:viewer')).toBe('read');
    expect(tokenAccess(scopes, 'token:bot')).toBe('spend');
    // An unnamed token (0.1 owner id) has no name to scope: it spends, as before.
    expect(tokenAccess(scopes, 'http-0123456789ab')).toBe('spend');
    expect(load({ GENPLAT_HTTP_TOKEN: TOKENS }).http.tokenScopes).toEqual({});
  });

  it('refuses bad entries naming the variable, the entry and the rule, never a token', () => {
    const said = (value: string) =>
      problems({ GENPLAT_HTTP_TOKEN: TOKENS, GENPLAT_HTTP_TOKEN_SCOPES: value }).join('\n');
    expect(said('planner=admin')).toMatch(
      /GENPLAT_HTTP_TOKEN_SCOPES: "planner": the scope must be read, quote or spend \(not "admin"\)/,
    );
    expect(said('ghost=quote')).toMatch(
      /GENPLAT_HTTP_TOKEN_SCOPES: "ghost" is not the name of a token in GENPLAT_HTTP_TOKEN/,
    );
    expect(said('planner=quote,planner=read')).toMatch(/GENPLAT_HTTP_TOKEN_SCOPES: "planner" is listed twice/);
    expect(said('planner:quote')).toMatch(
      /GENPLAT_HTTP_TOKEN_SCOPES: entry 1 "planner:quote" must be <token name>=<read\|quote\|spend>/,
    );
    expect(said('planner=Quote,viewer')).not.toContain('token-0123456789');
  });
});

describe('scope levels (spend ⊃ quote ⊃ read)', () => {
  it('each level grants the ones below it and no more', () => {
    expect(scopesFor('quote')).toEqual(['genplat:read', 'genplat:quote']);
    expect(accessOf(['genplat:spend'])).toBe('spend');
    expect(accessOf(['genplat:read', 'genplat:quote'])).toBe('quote');
    expect(accessOf(['openid'])).toBeUndefined();
    expect(grants(['genplat:quote'], 'read')).toBe(true);
    expect(grants(['genplat:quote'], 'spend')).toBe(false);
    expect(grants(['genplat:read'], 'quote')).toBe(false);
    expect(staticAuthInfo('token:planner', 0, 'quote').scopes).toEqual(['genplat:read', 'genplat:quote']);
    expect(staticAuthInfo('token:bot', 0).scopes).toEqual(['genplat:read', 'genplat:quote', 'genplat:spend']);
  });
});
