/**
 * Parsing of the OAuth resource-server settings (issue 14 item 1) and of named static tokens (item 6). Pure:
 * `src/config.ts` reads the environment and hands the raw strings in.
 */

/** HTTP mode signs people in through someone else's authorization server; we only verify its tokens. */
export interface OAuthConfig {
  /** The authorization server's issuer, exactly as its tokens spell `iss` (a trailing slash matters). */
  issuer: string;
  /**
   * Our canonical resource URL (RFC 8707 / RFC 9728 `resource`): the public URL of the `/mcp` endpoint. Clients
   * check the metadata's `resource` against the URL they connect to, so it must be that URL.
   */
  resource: string;
  /** The `aud` a token must carry (RFC 8707 audience binding); default `resource`. */
  audience: string;
  /** Where the issuer's signing keys are; default `jwks_uri` from the issuer's metadata. */
  jwksUrl?: string | undefined;
  /** RFC 7662 introspection for opaque (non-JWT) tokens; the client id and secret are ours at the issuer. */
  introspection?: { url: string; clientId: string; clientSecret: string } | undefined;
  /** The claim naming the caller's groups (teams: budgets, issue 30); default `groups`. */
  groupsClaim?: string | undefined;
}

export interface OAuthEnv {
  GENPLAT_OAUTH_ISSUER?: string | undefined;
  GENPLAT_OAUTH_RESOURCE?: string | undefined;
  GENPLAT_OAUTH_AUDIENCE?: string | undefined;
  GENPLAT_OAUTH_JWKS_URL?: string | undefined;
  GENPLAT_OAUTH_INTROSPECTION_URL?: string | undefined;
  GENPLAT_OAUTH_CLIENT_ID?: string | undefined;
  GENPLAT_OAUTH_CLIENT_SECRET?: string | undefined;
  GENPLAT_OAUTH_GROUPS_CLAIM?: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** https, or http on loopback (tests, a provider on the same machine); no credentials, query or fragment. */
function checkUrl(name: string, raw: string, problems: string[]): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${name} is not a valid URL`);
    return undefined;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    problems.push(`${name} must use https (plain http is allowed only for 127.0.0.1/localhost)`);
    return undefined;
  }
  if (url.username || url.password || url.search || url.hash) {
    problems.push(`${name} must not contain credentials, a query or a fragment`);
    return undefined;
  }
  return url;
}

const blank = (v: string | undefined) => {
  const t = v?.trim();
  return t ? t : undefined;
};

/**
 * @returns undefined when OAuth is off (no issuer); problems are appended, never quoting the client secret.
 */
export function parseOAuthConfig(
  env: OAuthEnv,
  publicUrl: string | undefined,
  problems: string[],
): OAuthConfig | undefined {
  const issuer = blank(env.GENPLAT_OAUTH_ISSUER);
  const others = [
    'GENPLAT_OAUTH_RESOURCE',
    'GENPLAT_OAUTH_AUDIENCE',
    'GENPLAT_OAUTH_JWKS_URL',
    'GENPLAT_OAUTH_INTROSPECTION_URL',
  ] as const;
  if (!issuer) {
    const set = [...others, 'GENPLAT_OAUTH_GROUPS_CLAIM' as const].filter((k) => blank(env[k]));
    if (set.length > 0) problems.push(`${set.join(', ')} set without GENPLAT_OAUTH_ISSUER: OAuth stays off`);
    return undefined;
  }
  const before = problems.length;
  checkUrl('GENPLAT_OAUTH_ISSUER', issuer, problems);
  let resource = blank(env.GENPLAT_OAUTH_RESOURCE);
  if (!resource && publicUrl) resource = `${publicUrl}/mcp`;
  if (!resource) {
    problems.push(
      'GENPLAT_OAUTH_ISSUER needs our public MCP URL: set GENPLAT_OAUTH_RESOURCE (e.g. https://mcp.example.com/mcp) or GENPLAT_PUBLIC_URL',
    );
  } else {
    const url = checkUrl('GENPLAT_OAUTH_RESOURCE', resource, problems);
    if (url) resource = url.href;
  }
  // Providers compare audiences as strings: kept as written (Entra `api://…`, Auth0 API identifiers).
  const audience = blank(env.GENPLAT_OAUTH_AUDIENCE) ?? resource;
  if (audience !== undefined) {
    try {
      new URL(audience);
    } catch {
      problems.push('GENPLAT_OAUTH_AUDIENCE must be an absolute URI (the RFC 8707 resource identifier tokens carry)');
    }
  }
  const jwksUrl = blank(env.GENPLAT_OAUTH_JWKS_URL);
  if (jwksUrl) checkUrl('GENPLAT_OAUTH_JWKS_URL', jwksUrl, problems);
  let introspection: OAuthConfig['introspection'];
  const introspectionUrl = blank(env.GENPLAT_OAUTH_INTROSPECTION_URL);
  if (introspectionUrl) {
    checkUrl('GENPLAT_OAUTH_INTROSPECTION_URL', introspectionUrl, problems);
    const clientId = blank(env.GENPLAT_OAUTH_CLIENT_ID);
    const clientSecret = blank(env.GENPLAT_OAUTH_CLIENT_SECRET);
    if (!clientId || !clientSecret) {
      problems.push('GENPLAT_OAUTH_INTROSPECTION_URL needs GENPLAT_OAUTH_CLIENT_ID and GENPLAT_OAUTH_CLIENT_SECRET');
    } else introspection = { url: introspectionUrl, clientId, clientSecret };
  }
  const groupsClaim = blank(env.GENPLAT_OAUTH_GROUPS_CLAIM) ?? 'groups';
  // A claim name as providers spell them (`groups`, `roles`, `cognito:groups`, a namespaced URL of Auth0).
  if (!/^[\x21-\x7e]{1,200}$/.test(groupsClaim)) {
    problems.push('GENPLAT_OAUTH_GROUPS_CLAIM must be a claim name: 1-200 printable characters without spaces');
  }
  if (problems.length > before || !resource || !audience) return undefined;
  return { issuer, resource, audience, jwksUrl, introspection, groupsClaim };
}

/** A caller name: it becomes the owner id `token:<name>`, so it stays short and plain. */
const NAMED = /^([A-Za-z][A-Za-z0-9_.-]{0,31})=(.+)$/;

/**
 * `GENPLAT_HTTP_TOKEN`: comma-separated entries, `<token>` or `<name>=<token>`. Tokens are case-sensitive secrets:
 * trimmed, never lower-cased, never quoted in a problem.
 */
export function parseHttpTokens(
  raw: string | undefined,
  problems: string[],
): { tokens: string[]; names: Record<string, string> } {
  const tokens: string[] = [];
  const names: Record<string, string> = {};
  const entries = (raw ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const [i, entry] of entries.entries()) {
    const m = NAMED.exec(entry);
    const name = m?.[1];
    const token = m ? m[2]!.trim() : entry;
    if (token.length < 16) {
      problems.push(
        `GENPLAT_HTTP_TOKEN must be at least 16 characters (each token, when comma-separated; entry ${i + 1}${name ? ` "${name}"` : ''} is shorter)`,
      );
      continue;
    }
    if (name) {
      if (names[name] !== undefined) problems.push(`GENPLAT_HTTP_TOKEN: the name "${name}" is used twice`);
      else if (Object.values(names).includes(token))
        problems.push(`GENPLAT_HTTP_TOKEN: entry ${i + 1} (${name}) repeats another named entry's token`);
      else names[name] = token;
    }
    if (!tokens.includes(token)) tokens.push(token);
  }
  return { tokens, names };
}
