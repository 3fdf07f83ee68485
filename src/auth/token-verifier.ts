/**
 * Access-token verification (issue 14 item 1): a JWT against the issuer's key set, or an opaque token through
 * RFC 7662 introspection. Either way the answer is an `AuthInfo` whose `resource` is the token's audience (so the
 * SDK's `expectedResource` check binds tokens to us, RFC 8707) and whose `extra.owner` is issuer + subject
 * (src/auth/identity.ts). A token we refuse throws `OAuthError(invalid_token)` (→ 401 with a challenge); a
 * provider we cannot reach throws anything else (→ 500), so an outage never sends every host into a sign-in loop.
 */
import { type AuthInfo, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { groupClaims, personClaims } from '../people/names.js';
import { GROUP } from '../people/people-file.js';
import { type CallerExtra, oidcOwner } from './identity.js';
import { cachedIssuerMetadata } from './issuer-metadata.js';
import type { OAuthConfig } from './oauth-config.js';
import { outageMemo } from './outage-memo.js';
import { type CachingTokenVerifier, cachingVerifier } from './verify-cache.js';

/** Asymmetric only: we hold no shared secret with the provider, so an HS256 token is never ours. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** 30 s of clock skew between the provider and us: RFC 7519 §4.1.4 allows "a few minutes"; tokens live minutes. */
const CLOCK_TOLERANCE_S = 30;
/** 5 s: as the JWKS fetch (jose's default), so a slow provider fails alike whichever way it is asked. */
const INTROSPECTION_TIMEOUT_MS = 5000;

export interface VerifierOptions {
  oauth: OAuthConfig;
  /** ms since epoch; tests move it to expire tokens without sleeping. */
  now?: () => number;
  fetch?: typeof fetch;
}

const invalid = (why: string) => new OAuthError(OAuthErrorCode.InvalidToken, why);

/**
 * The token's audience as a URL when one of its `aud` values is exactly our audience string, else undefined
 * (then refused). Exactly: no URL normalisation, which would map `http://h/x/%2e%2e/mcp`, `http://0x7f.0.0.1/mcp`
 * or a trailing slash onto ours (issue 19 item 3); providers copy the resource indicator verbatim into `aud`, and
 * clients take it from our metadata, so a token meant for us carries our string as we publish it.
 */
export function resourceOf(aud: unknown, audience: string): URL | undefined {
  const list = (Array.isArray(aud) ? aud : [aud]).filter((a): a is string => typeof a === 'string');
  if (!list.includes(audience)) return undefined;
  try {
    return new URL(audience);
  } catch {
    return undefined;
  }
}

/** RFC 9068 `scope` (space-separated); Entra ID and some others use `scp` (a string or an array). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

function authInfoOf(claims: JWTPayload & Record<string, unknown>, oauth: OAuthConfig): AuthInfo {
  const issuer = claims.iss;
  const subject = claims.sub;
  if (typeof issuer !== 'string' || typeof subject !== 'string' || subject === '') {
    throw invalid('token has no issuer or subject');
  }
  const resource = resourceOf(claims.aud, oauth.audience);
  // The SDK's `expectedResource` check compares normalised URLs; ours above is exact, so it decides.
  if (!resource) throw invalid('Token was not issued for this resource');
  const clientId = claims.client_id ?? claims.azp;
  return {
    // Kept out of everything downstream: nothing after the gate needs the token itself.
    token: '',
    // Informational only: identity is never the client id (hosts re-register clients).
    clientId: typeof clientId === 'string' ? clientId : '',
    scopes: scopesOf(claims),
    ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    resource,
    extra: {
      owner: oidcOwner(issuer, subject),
      via: 'oauth',
      issuer,
      subject,
      // Names for the audit and approval messages (issue 28 item 3); the people file wins over them.
      ...personClaims(claims),
      // Teams for budgets (issue 30): added to the people file's groups of this caller.
      ...withGroups(groupClaims(claims, oauth.groupsClaim ?? 'groups', GROUP)),
    } satisfies CallerExtra,
  };
}

const withGroups = (groups: string[]) => (groups.length > 0 ? { groups } : {});

/** Three base64url segments: a JWS. Anything else is opaque (introspection) or garbage. */
const looksLikeJwt = (t: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(t);

export function createTokenVerifier(opts: VerifierOptions): CachingTokenVerifier {
  const { oauth } = opts;
  const now = opts.now ?? Date.now;
  const metadata = cachedIssuerMetadata(oauth.issuer, opts.fetch, now);
  // While the provider is down, its key set and introspection endpoint are asked once per window.
  const keysDown = outageMemo(now);
  const introspectionDown = outageMemo(now);
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keySet = async () => {
    if (!jwks) {
      const url = oauth.jwksUrl ?? (await metadata()).jwks_uri;
      if (!url) throw new Error(`the issuer ${oauth.issuer} publishes no jwks_uri: set GENPLAT_OAUTH_JWKS_URL`);
      jwks = createRemoteJWKSet(new URL(url));
    }
    return jwks;
  };

  async function verifyJwt(token: string): Promise<AuthInfo> {
    const keys = await keySet();
    keysDown.check();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: oauth.issuer,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(now()),
        requiredClaims: ['exp', 'sub', 'aud'],
      });
      return authInfoOf(payload as JWTPayload & Record<string, unknown>, oauth);
    } catch (err) {
      if (err instanceof OAuthError) throw err;
      // A provider that does not answer is our outage, not the caller's bad token.
      // jose answers a key-set response other than 200 with a bare JOSEError (no subclass): an outage too.
      const outage =
        err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError) || err.constructor === errors.JOSEError;
      if (outage) {
        keysDown.failed(err);
        throw err;
      }
      throw invalid(err instanceof errors.JWTExpired ? 'Token has expired' : 'Token is not valid for this server');
    }
  }

  async function introspect(token: string, cfg: NonNullable<OAuthConfig['introspection']>): Promise<AuthInfo> {
    introspectionDown.check();
    try {
      return await introspectOnce(token, cfg);
    } catch (err) {
      if (!(err instanceof OAuthError)) introspectionDown.failed(err);
      throw err;
    }
  }

  async function introspectOnce(token: string, cfg: NonNullable<OAuthConfig['introspection']>): Promise<AuthInfo> {
    const res = await (opts.fetch ?? fetch)(cfg.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(cfg.clientId)}:${encodeURIComponent(cfg.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!res.ok) throw new Error(`token introspection answered ${res.status}`);
    const claims = (await res.json()) as JWTPayload & Record<string, unknown> & { active?: boolean };
    if (claims.active !== true) throw invalid('Token is not active');
    // RFC 7662 makes `iss` optional: the endpoint we configured speaks for its issuer.
    const iss = claims.iss ?? oauth.issuer;
    if (iss !== oauth.issuer) throw invalid('Token was issued by another authorization server');
    if (typeof claims.exp !== 'number') throw invalid('Token has no expiration time');
    if (claims.exp + CLOCK_TOLERANCE_S < now() / 1000) throw invalid('Token has expired');
    // A token with no resource owner (client credentials) is its client's own: RFC 9068 §2.2 makes `sub` the
    // client id in that case, which is what a JWT of the same grant carries, so both formats name one caller.
    const sub = claims.sub ?? claims.client_id;
    return authInfoOf({ ...claims, iss, sub: typeof sub === 'string' ? sub : undefined }, oauth);
  }

  return cachingVerifier(
    {
      async verifyAccessToken(token) {
        if (looksLikeJwt(token)) return verifyJwt(token);
        if (oauth.introspection) return introspect(token, oauth.introspection);
        throw invalid('Token is not a JWT and no introspection endpoint is configured');
      },
    },
    { now },
  );
}
