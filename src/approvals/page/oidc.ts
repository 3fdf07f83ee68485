/**
 * The approval page as an OpenID Connect relying party (authorization code + PKCE S256, a confidential client):
 * discovery from the issuer's `/.well-known/openid-configuration`, the authorization URL, the code exchange at
 * the token endpoint and the ID token's verification with jose (signature by the provider's JWKS, issuer,
 * audience = our client id, nonce, expiry). Talks only to the identity provider; the code, the tokens and the
 * client secret are never logged, rendered or put in an error message.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { cleanEmail, cleanName } from '../../people/names.js';

const TIMEOUT_MS = 5000;

export interface RelyingParty {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `<GENPLAT_PUBLIC_URL>/approve/callback`, registered at the provider. */
  redirectUri: string;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** Who signed in: the claims the page uses. */
export interface SignedIn {
  iss: string;
  sub: string;
  name?: string | undefined;
  email?: string | undefined;
}

/** Sign-in failed; `message` is safe to show (no code, token or secret in it). */
export class SignInError extends Error {}

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function relyingParty(rp: RelyingParty, fetchImpl: typeof fetch = fetch) {
  let discovery: Promise<Discovery> | undefined;
  let jwks: JWTVerifyGetKey | undefined;

  async function discover(): Promise<Discovery> {
    const url = `${rp.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
    if (!res.ok) throw new SignInError(`the identity provider's discovery document answered ${res.status}`);
    const doc = (await res.json()) as Partial<Discovery>;
    // OpenID Connect Discovery §4.3: the document must name exactly the issuer it was fetched for.
    if (doc.issuer !== rp.issuer) throw new SignInError("the identity provider's discovery names another issuer");
    if (!doc.authorization_endpoint || !doc.token_endpoint || !doc.jwks_uri)
      throw new SignInError("the identity provider's discovery lacks an endpoint the sign-in needs");
    return doc as Discovery;
  }

  /** Cached once it succeeded; a failure is retried at the next sign-in. */
  function metadata(): Promise<Discovery> {
    if (!discovery) {
      discovery = discover().catch((err) => {
        discovery = undefined;
        throw err;
      });
    }
    return discovery;
  }

  return {
    async authorizationUrl(o: { state: string; nonce: string; verifier: string }): Promise<string> {
      const d = await metadata();
      const u = new URL(d.authorization_endpoint);
      u.search = new URLSearchParams({
        response_type: 'code',
        client_id: rp.clientId,
        redirect_uri: rp.redirectUri,
        scope: 'openid profile email',
        state: o.state,
        nonce: o.nonce,
        code_challenge: pkceChallenge(o.verifier),
        code_challenge_method: 'S256',
        // The approver proves who they are now, for this decision; a remembered login is the provider's choice.
      }).toString();
      return u.href;
    },

    /** Code → ID token → verified claims. */
    async signIn(o: { code: string; verifier: string; nonce: string }): Promise<SignedIn> {
      const d = await metadata();
      const res = await fetchImpl(d.token_endpoint, {
        method: 'POST',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded before base64.
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(rp.clientId)}:${encodeURIComponent(rp.clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: o.code,
          redirect_uri: rp.redirectUri,
          code_verifier: o.verifier,
        }),
      });
      // The body may echo what we sent: only the status and the standard error code are kept.
      const body = (await res.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
      if (!res.ok || typeof body.id_token !== 'string') {
        const code = typeof body.error === 'string' && /^[a-z_]{1,40}$/.test(body.error) ? ` (${body.error})` : '';
        throw new SignInError(`the identity provider's token endpoint refused the sign-in: ${res.status}${code}`);
      }
      jwks ??= createRemoteJWKSet(new URL(d.jwks_uri), { timeoutDuration: TIMEOUT_MS });
      let claims: Record<string, unknown>;
      try {
        ({ payload: claims } = await jwtVerify(body.id_token, jwks, { issuer: rp.issuer, audience: rp.clientId }));
      } catch (err) {
        throw new SignInError(`the ID token did not verify (${(err as { code?: string }).code ?? 'invalid'})`);
      }
      if (claims.nonce !== o.nonce) throw new SignInError('the ID token was not issued for this sign-in (nonce)');
      // OpenID Connect Core §3.1.3.7: with several audiences, `azp` must be us.
      if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== rp.clientId)
        throw new SignInError('the ID token was issued to another client (azp)');
      if (typeof claims.sub !== 'string' || !claims.sub) throw new SignInError('the ID token names no subject');
      // The same cleaning as every other source of names (control, bidi and zero-width characters refused).
      return { iss: rp.issuer, sub: claims.sub, name: cleanName(claims.name), email: cleanEmail(claims.email) };
    },
  };
}

export type RelyingPartyClient = ReturnType<typeof relyingParty>;
