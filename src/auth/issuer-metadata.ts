/**
 * The authorization server's own metadata (RFC 8414 / OpenID Connect Discovery), read once for its `jwks_uri`.
 * This is the only network code outside src/client/: it talks to the identity provider, never to the platform,
 * and carries no platform key.
 */
import { outageMemo } from './outage-memo.js';

/** 5 s: jose's own JWKS fetch timeout, so a slow provider fails both reads alike. */
const DISCOVERY_TIMEOUT_MS = 5000;

export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/**
 * RFC 8414 inserts the well-known segment before the issuer's path; OpenID Connect Discovery appends it. Keycloak
 * (`/realms/x`) and Auth0 (trailing slash) publish the OIDC form, WorkOS and oidc-provider both.
 */
export function discoveryUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, '');
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * @throws Error naming the URLs tried when none answers metadata for exactly this issuer (RFC 8414 §3.3: a
 *   document naming another issuer must not be used).
 */
export async function fetchIssuerMetadata(issuer: string, fetchImpl: typeof fetch = fetch): Promise<IssuerMetadata> {
  const tried: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    try {
      const res = await fetchImpl(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!res.ok) {
        tried.push(`${url} (${res.status})`);
        // Both locations are on the issuer's host: after a 5xx the second would fail alike (one fetch per outage).
        if (res.status >= 500) break;
        continue;
      }
      const doc = (await res.json()) as Partial<IssuerMetadata>;
      if (doc.issuer !== issuer) {
        tried.push(`${url} (names issuer ${JSON.stringify(doc.issuer)})`);
        continue;
      }
      return doc as IssuerMetadata;
    } catch (err) {
      tried.push(`${url} (${(err as Error).name})`);
      // Unreachable host (or a timeout): the other location is on the same host.
      if (!(err instanceof SyntaxError)) break;
    }
  }
  throw new Error(`no authorization server metadata for ${issuer}: tried ${tried.join(', ')}`);
}

/**
 * A cached read: the first success is kept for the process; a failure is remembered for one outage window
 * (src/auth/outage-memo.ts), so a provider that is down sees one discovery fetch per window, not one per request.
 */
export function cachedIssuerMetadata(
  issuer: string,
  fetchImpl?: typeof fetch,
  now: () => number = Date.now,
): () => Promise<IssuerMetadata> {
  let pending: Promise<IssuerMetadata> | undefined;
  const outage = outageMemo(now);
  return () => {
    if (!pending) {
      try {
        outage.check();
      } catch (err) {
        return Promise.reject(err);
      }
      pending = fetchIssuerMetadata(issuer, fetchImpl).catch((err) => {
        pending = undefined;
        outage.failed(err);
        throw err;
      });
    }
    return pending;
  };
}
