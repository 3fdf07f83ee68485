/**
 * The HTTP authentication gate: who is calling, or the answer that refuses them. Two ways in:
 *
 * - a static bearer token (headless callers: bots, CI), checked first and in constant time; the scopes of its level
 *   (GENPLAT_HTTP_TOKEN_SCOPES, every scope by default);
 * - an OAuth access token (people, through their host's connector), verified by the SDK's `verifyBearerToken`
 *   with our verifier and `expectedResource` on (the audience must be us: RFC 8707, GHSA-rvq5-wwqv-78pq), and
 *   refused with 403 `insufficient_scope` unless it grants at least reading.
 *
 * On the static-only path (`/static/mcp`) nothing about OAuth is advertised, because some hosts stop sending a
 * configured `Authorization` header once a server advertises OAuth (mcp-notes §8).
 */
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { bearerValue, createAuthenticator } from '../transports/http-auth.js';
import { burstLogger } from './burst-log.js';
import { ownerOf, staticAuthInfo } from './identity.js';
import type { OAuthConfig } from './oauth-config.js';
import { resourceMetadataUrl } from './resource-metadata.js';
import { ALL_SCOPES, grants, READ_SCOPE } from './scopes.js';
import { type TokenScopes, tokenAccess } from './token-scopes.js';

export type GateVerdict =
  | { ok: true; owner: string; authInfo: AuthInfo }
  | { ok: false; status: number; headers: Record<string, string>; body: string };

export interface GateOptions {
  tokens: readonly string[];
  tokenNames?: Readonly<Record<string, string>> | undefined;
  /** GENPLAT_HTTP_TOKEN_SCOPES: a named token's level (src/auth/token-scopes.ts); absent = spend. */
  tokenScopes?: TokenScopes | undefined;
  /** `knownGood` (src/auth/verify-cache.ts) lets an already verified token through a throttled address. */
  oauth?: { config: OAuthConfig; verifier: OAuthTokenVerifier & { knownGood?(token: string): boolean } } | undefined;
  now: () => number;
  log: Logger;
}

/** How many first sign-ins are remembered for the "new caller" log line before the memory starts over. */
const SEEN_MAX = 10_000;

export function createGate(opts: GateOptions) {
  const staticOwner = createAuthenticator(opts.tokens, opts.tokenNames ?? {});
  const oauth = opts.oauth;
  const metadataUrl = oauth ? resourceMetadataUrl(oauth.config) : undefined;
  const seen = new Set<string>();
  // An outage fails every request: one line per burst, not one per request.
  const report = burstLogger(opts.log, opts.now);

  /**
   * A missing header and a refused token say different things (a host that sent nothing has a config to fix;
   * one that sent a token has the wrong one). Never the token itself.
   */
  const staticRefusal = (authorization: string | undefined): GateVerdict => ({
    ok: false,
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="genplat-mcp"' },
    // JSON-RPC shaped, as the SDK answers, so clients show the message.
    body: JSON.stringify({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message:
          bearerValue(authorization) === undefined
            ? 'Unauthorized: no bearer token; send Authorization: Bearer <GENPLAT_HTTP_TOKEN>'
            : 'Unauthorized: this bearer token is not one the server accepts (compare it with GENPLAT_HTTP_TOKEN)',
      },
      id: null,
    }),
  });

  /** `path`: `mcp` = static tokens and OAuth; `static` = static tokens only, nothing about OAuth advertised. */
  async function check(authorization: string | undefined, path: 'mcp' | 'static'): Promise<GateVerdict> {
    const owner = staticOwner(authorization);
    if (owner) {
      const access = tokenAccess(opts.tokenScopes ?? {}, owner);
      return { ok: true, owner, authInfo: staticAuthInfo(owner, Math.floor(opts.now() / 1000), access) };
    }
    if (!oauth || path === 'static') return staticRefusal(authorization);
    const challenge = { resourceMetadataUrl: metadataUrl, requiredScopes: [...ALL_SCOPES] };
    try {
      const authInfo = await verifyBearerToken(authorization, {
        verifier: oauth.verifier,
        expectedResource: new URL(oauth.config.audience),
        ...(metadataUrl ? { resourceMetadataUrl: metadataUrl } : {}),
      });
      const caller = ownerOf(authInfo);
      if (!caller) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token names no caller');
      if (!grants(authInfo.scopes, 'read')) {
        throw new OAuthError(OAuthErrorCode.InsufficientScope, `this server needs at least the ${READ_SCOPE} scope`);
      }
      if (!seen.has(caller)) {
        if (seen.size >= SEEN_MAX) seen.clear();
        seen.add(caller);
        // Once per caller and process: how the operator learns the owner id to name in budgets.
        opts.log.info('oauth caller', { owner: caller, subject: authInfo.extra?.subject, scopes: authInfo.scopes });
      }
      return { ok: true, owner: caller, authInfo };
    } catch (err) {
      if (!(err instanceof OAuthError)) {
        // The provider is unreachable or answered nonsense: our outage (500), never a 401 that restarts sign-in.
        report('warn', 'oauth token check failed', { error: err instanceof Error ? err.message : String(err) });
      }
      const res = bearerAuthChallengeResponse(err, challenge);
      return {
        ok: false,
        status: res.status,
        headers: Object.fromEntries(res.headers.entries()),
        body: await res.text(),
      };
    }
  }

  /**
   * True when the header carries an OAuth token verified earlier (and not expired): it passes a throttled address
   * without asking the provider. Static tokens are not let through: the throttle is also what slows guessing them.
   */
  function knownGood(authorization: string | undefined, path: 'mcp' | 'static'): boolean {
    const token = bearerValue(authorization);
    return path === 'mcp' && token !== undefined && oauth?.verifier.knownGood?.(token) === true;
  }

  return { check, knownGood };
}
