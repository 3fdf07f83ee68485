/**
 * Who is who (issue 14 item 3): the one place where an authenticated request becomes an `owner`, the id every
 * job record, confirmation token, task id and list_jobs answer is scoped by (src/jobs/owner.ts).
 *
 * - OAuth: the token's issuer + subject, hashed: `oidc:<16 hex>`. Never the OAuth client id (hosts such as
 *   Claude re-register their client on reconnect, which would orphan every job) and never the subject alone (two
 *   providers may reuse a subject). The hash keeps provider subjects (sometimes e-mail addresses) out of the
 *   store; `genplat-mcp` logs the id at first sight so the operator can name it in budgets.
 * - Static tokens: `token:<name>` for a named entry (`GENPLAT_HTTP_TOKEN="bot=<token>"`), and the 0.1 id
 *   `http-<12 hex of sha256(token)>` for an unnamed one, so existing ledgers still match their caller.
 */
import { createHash } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { type Access, scopesFor } from './scopes.js';

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** 64 bits: collisions need ~4 billion users of one deployment. The newline cannot occur in an issuer URL. */
export function oidcOwner(issuer: string, subject: string): string {
  return `oidc:${sha256hex(`${issuer}\n${subject}`).slice(0, 16)}`;
}

/** 0.1's id of an unnamed static token: 48 bits of sha256 tell a handful of callers apart, nothing more. */
export function tokenHashOwner(token: string): string {
  return `http-${sha256hex(token).slice(0, 12)}`;
}

export function namedTokenOwner(name: string): string {
  return `token:${name}`;
}

/**
 * A Slack person (issue 28 item 1): `slack:<team_id>:<user_id>`. In an Enterprise Grid org (`enterprise_id` set)
 * user ids are org-wide, so the person is `slack:<enterprise_id>:<user_id>`: the same person in two workspaces
 * of one org is one owner (one budget, one list of jobs). Team ids start with T and enterprise ids with E, so the
 * two forms never collide.
 */
export function slackOwner(person: { teamId: string; userId: string; enterpriseId?: string | undefined }): string {
  return `slack:${person.enterpriseId ?? person.teamId}:${person.userId}`;
}

/** A person a delegating bot acts for, inside the bot's own namespace: `<bot owner>:<person id>`. */
export function delegatedOwner(botOwner: string, personId: string): string {
  return `${botOwner}:${personId}`;
}

/** What the handler factory and the tools may know of a caller. Never holds the token itself. */
export interface CallerExtra extends Record<string, unknown> {
  owner: string;
  /** `oauth`, `static` (a bearer token), `slack` (a Slack-signed request). */
  via: 'oauth' | 'static' | 'slack';
  /** OAuth only: the token's issuer and subject (for the audit trail and logs). */
  issuer?: string;
  subject?: string;
  /** OAuth only: the client the token was issued to (delegation is granted per client id). */
  clientId?: string;
  /** The person's display name and e-mail when the request or token carries them (OAuth claims, a bot's `name`). */
  name?: string;
  email?: string;
  /** Set when a delegating bot acts for a person: the bot's own owner id. */
  actingBot?: string;
  /** OAuth only: the token's groups claim (GENPLAT_OAUTH_GROUPS_CLAIM), valid group names only: the caller's teams. */
  groups?: string[];
}

/**
 * A static-token caller: the scopes of its level (GENPLAT_HTTP_TOKEN_SCOPES; every scope by default: headless callers
 * are trusted as far as the ceilings allow unless the operator says otherwise).
 */
export function staticAuthInfo(owner: string, nowSeconds: number, access: Access = 'spend'): AuthInfo {
  return {
    // The SDK's AuthInfo carries the token for verifiers that need it later; we never do, so it stays empty.
    token: '',
    clientId: owner,
    scopes: scopesFor(access),
    // Static tokens do not expire; an hour ahead satisfies checks that want an expiry.
    expiresAt: nowSeconds + 3600,
    extra: { owner, via: 'static' } satisfies CallerExtra,
  };
}

/**
 * The name, e-mail and groups a verified request carried for its person (OAuth claims, a delegating bot's
 * `name`). Groups come only from a verified token's claim, never from a request's body.
 */
export function callerNames(authInfo: AuthInfo | undefined): { name?: string; email?: string; groups?: string[] } {
  const { name, email, groups } = (authInfo?.extra ?? {}) as Partial<CallerExtra>;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof email === 'string' ? { email } : {}),
    ...(Array.isArray(groups) && groups.length > 0 ? { groups: [...groups] } : {}),
  };
}

/** The owner behind a verified request; undefined when it carries none (a programming error upstream). */
export function ownerOf(authInfo: AuthInfo | undefined): string | undefined {
  const owner = authInfo?.extra?.owner;
  return typeof owner === 'string' && owner.length > 0 ? owner : undefined;
}
