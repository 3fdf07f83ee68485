/**
 * A real OpenID provider on loopback (`oidc-provider`, the certified Node implementation), never a mock: dynamic
 * client registration, PKCE, RFC 8707 resource indicators with JWT access tokens, RFC 9207 `iss`, client
 * credentials, introspection. The login and consent pages are replaced by one scripted interaction route: it
 * signs in `idp.nextUser` and grants what the client asked for (or only `grantOnly`), so a redirect follower with
 * a cookie jar plays the browser.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

export const BOT_CLIENT = { id: 'headless-bot', secret: 'headless-bot-secret-0123456789' };
/** Our server's own confidential client at the provider, for RFC 7662 introspection of opaque tokens. */
export const INTROSPECTOR = { id: 'genplat-resource-server', secret: 'genplat-introspection-secret-0123' };

export interface TestIdp {
  issuer: string;
  /** Who the next scripted login signs in. */
  nextUser: string;
  /** When set, the scripted consent grants only these resource scopes. */
  grantOnly: string | undefined;
  /** Every request the provider received (method and path), oldest first: what our server cost it. */
  requests: { method: string; path: string }[];
  /** While true the provider answers every request 503 (an outage), still counting them. */
  down: boolean;
  /** Claims added to every access token issued from now on (e.g. `{ groups: [...] }`: teams, issue 30). */
  extraClaims: Record<string, unknown>;
  /** A client-credentials access token for `resource` (sub = the bot's client id). */
  clientCredentialsToken(resource: string, scope: string): Promise<string>;
  /** Revokes one of the bot's access tokens (RFC 7009): introspection answers `active: false` from then on. */
  revoke(token: string): Promise<void>;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** `resources`: the resource indicators it issues JWT access tokens for (ours and a foreign one). */
export async function startIdp(opts: {
  resources: string[];
  scopes: string[];
  /** Opaque access tokens (checked by introspection) instead of JWTs. */
  opaque?: boolean;
}): Promise<TestIdp> {
  let app: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let interaction: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const requests: { method: string; path: string }[] = [];
  let down = false;
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0] ?? '' });
    if (down) {
      res.writeHead(503).end();
      return;
    }
    if (req.url?.startsWith('/interaction/') && interaction) {
      interaction(req, res).catch((err) => {
        res.writeHead(500);
        res.end(String(err));
      });
      return;
    }
    app?.(req, res);
  });
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const scope = opts.scopes.join(' ');

  const state = { extraClaims: {} as Record<string, unknown> };
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    extraTokenClaims: async () => ({ ...state.extraClaims }),
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: ['openid', 'offline_access', ...opts.scopes],
    clients: [
      {
        client_id: BOT_CLIENT.id,
        client_secret: BOT_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope,
      },
      {
        client_id: INTROSPECTOR.id,
        client_secret: INTROSPECTOR.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    pkce: { required: () => true },
    // Seconds; set explicitly so the provider does not print notices about its defaults.
    ttl: {
      AccessToken: 600,
      ClientCredentials: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
    },
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
          if (!opts.resources.includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope,
            audience: indicator,
            // 10 min, a typical provider's access-token lifetime.
            accessTokenTTL: 600,
            ...(opts.opaque
              ? { accessTokenFormat: 'opaque' }
              : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
          };
        },
      },
    },
  });
  app = provider.callback();

  const idp: TestIdp = {
    issuer,
    requests,
    get extraClaims() {
      return state.extraClaims;
    },
    set extraClaims(v: Record<string, unknown>) {
      state.extraClaims = v;
    },
    get down() {
      return down;
    },
    set down(v: boolean) {
      down = v;
    },
    nextUser: 'alice',
    grantOnly: undefined,
    async clientCredentialsToken(resource, wanted) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${BOT_CLIENT.id}:${BOT_CLIENT.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: wanted, resource }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token endpoint: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async revoke(token) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${BOT_CLIENT.id}:${BOT_CLIENT.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
      if (!res.ok) throw new Error(`revocation endpoint: ${res.status}`);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };

  // The scripted login + consent: what a person does on the provider's pages.
  interaction = async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: idp.nextUser } },
        {
          mergeWithLastSubmission: false,
        },
      );
      return;
    }
    const accountId = details.session?.accountId;
    if (!accountId) throw new Error('consent without a session');
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) {
      const granted = idp.grantOnly === undefined ? scopes : scopes.filter((s) => idp.grantOnly?.includes(s));
      if (granted.length > 0) grant.addResourceScope(indicator, granted.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };
  return idp;
}
