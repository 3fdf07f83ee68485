/**
 * The SDK v2 client's OAuth flow without a browser: an `OAuthClientProvider` that keeps its state in memory
 * (dynamic client registration, PKCE verifier, tokens, discovery state), and a redirect follower with a cookie
 * jar that plays the person's browser through the provider's authorize → login → consent → callback hops.
 */
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

/** Never contacted: the follower stops at the redirect to it and hands its query to `finishAuth`. */
export const CALLBACK = 'http://127.0.0.1:1/callback';

export class MemoryOAuthProvider implements OAuthClientProvider {
  private creds = new Map<string, StoredOAuthClientInformation>();
  private stored: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** The authorization URL the SDK sent the "browser" to, once it did. */
  authorizationUrl: URL | undefined;
  lastState: string | undefined;
  /** Client ids the SDK registered (dynamic client registration), one per issuer. */
  registrations = 0;

  readonly redirectUrl = CALLBACK;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'genplat oauth test',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };

  clientInformation(ctx?: OAuthClientInformationContext) {
    return ctx ? this.creds.get(ctx.issuer) : undefined;
  }
  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) {
    this.registrations++;
    if (ctx) this.creds.set(ctx.issuer, info);
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier');
    return this.verifier;
  }
}

/** Follows redirects from `start` with a cookie jar until one points at `CALLBACK`; returns that URL. */
export async function followToCallback(start: URL): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(
        `the provider stopped at ${url.pathname} with ${res.status}: ${(await res.text()).slice(0, 300)}`,
      );
    }
    await res.body?.cancel();
    const next = new URL(location, url);
    if (next.href.startsWith(CALLBACK)) return next;
    url = next;
  }
  throw new Error('too many redirects');
}

/**
 * The whole sign-in as a host runs it: connect → 401 → discovery → registration → authorize (PKCE) → scripted
 * login/consent → code exchange → connect again with the token. Returns the connected client.
 */
export async function signIn(
  mcpUrl: string,
  provider: MemoryOAuthProvider,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<Client> {
  const newClient = () =>
    new Client(
      { name: 'oauth-test', version: '0.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
  const first = newClient();
  await expectUnauthorized(
    first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })),
  );
  if (!provider.authorizationUrl) throw new Error('the SDK never redirected to the authorization server');
  const callback = await followToCallback(provider.authorizationUrl);
  if (callback.searchParams.get('state') !== provider.lastState) throw new Error('state mismatch');
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await transport.finishAuth(callback.searchParams);
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

async function expectUnauthorized(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (err instanceof UnauthorizedError) return;
    throw err;
  }
  throw new Error('connected without signing in');
}

/** A client that presents an access token it already holds (a header, no OAuth flow), as headless callers do. */
export async function withToken(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'token-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  // The SDK client validates structuredContent only for tools it has listed.
  await client.listTools();
  return client;
}
