/**
 * Slack identity auth (issue 28 item 1): Slackbot's MCP client signs every POST with the Slack app's signing
 * secret and names the person in `params._meta.slack`. On when `GENPLAT_SLACK_SIGNING_SECRETS` is set; a request
 * carrying either Slack header is then judged by these rules only (no bearer token needed, none consulted), so a
 * refused Slack request never reaches the identity provider or the platform:
 *
 * - 401: a header missing, a signature no configured secret produced, a timestamp more than 5 minutes from our
 *   clock, a body that names no Slack person;
 * - 403: a person of a workspace (team id) or Enterprise Grid org (enterprise id) not in `GENPLAT_SLACK_TEAMS`,
 *   or a Slack request that also names a delegated person (Slack people do not delegate).
 *
 * The caller is the Slack person (`slack:<team>:<user>`, src/auth/identity.ts), never the Slack app.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import { type CallerExtra, slackOwner } from './identity.js';
import { ON_BEHALF_OF_KEY, onBehalfOf, slackPersonOf } from './request-person.js';
import { ALL_SCOPES } from './scopes.js';
import { checkSlackHeaders, verifySlackSignature } from './slack-signature.js';

export interface SlackAuthConfig {
  /** Signing secrets of the Slack apps allowed to call (several during a rotation, or several apps). */
  signingSecrets: string[];
  /** Allowed workspaces: team ids (`T…`) and/or Enterprise Grid org ids (`E…`). */
  teams: string[];
}

export type IdentityVerdict =
  | { ok: true; owner: string; authInfo: AuthInfo }
  | { ok: false; status: 401 | 403; message: string; badSignature?: boolean };

/** True when the request carries Slack's headers (then only Slack's rules judge it). */
export function hasSlackHeaders(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['x-slack-signature'] !== undefined || headers['x-slack-request-timestamp'] !== undefined;
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? undefined : v);

/** `body` = the JSON of `raw` (undefined when it is not JSON). Never throws. */
/**
 * The refusal the headers alone decide (missing header, stale timestamp), or undefined: asked before the body is
 * read, so an unverified request holds no body buffer for these (review 4).
 */
export function refuseSlackHeaders(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
): Extract<IdentityVerdict, { ok: false }> | undefined {
  const verdict = checkSlackHeaders({
    timestamp: header(headers['x-slack-request-timestamp']),
    signature: header(headers['x-slack-signature']),
    nowMs,
  });
  return verdict.ok ? undefined : refusedSignature(verdict.reason);
}

function refusedSignature(reason: 'missing' | 'stale' | 'mismatch'): Extract<IdentityVerdict, { ok: false }> {
  const message = {
    missing: 'Unauthorized: a Slack request needs both X-Slack-Request-Timestamp and X-Slack-Signature',
    stale: 'Unauthorized: X-Slack-Request-Timestamp is more than 5 minutes from the server clock',
    mismatch: "Unauthorized: X-Slack-Signature does not match any of the Slack app's signing secrets configured here",
  }[reason];
  return { ok: false, status: 401, message, badSignature: true };
}

export function checkSlackRequest(opts: {
  config: SlackAuthConfig;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  body: unknown;
  nowMs: number;
}): IdentityVerdict {
  const signed = verifySlackSignature({
    secrets: opts.config.signingSecrets,
    timestamp: header(opts.headers['x-slack-request-timestamp']),
    signature: header(opts.headers['x-slack-signature']),
    body: opts.raw,
    nowMs: opts.nowMs,
  });
  if (!signed.ok) return refusedSignature(signed.reason);
  const person = slackPersonOf(opts.body);
  if (!person) {
    return {
      ok: false,
      status: 401,
      message: 'Unauthorized: a Slack request must name its person in params._meta.slack (user_id, team_id)',
    };
  }
  const allowed = opts.config.teams;
  if (!allowed.includes(person.teamId) && !(person.enterpriseId && allowed.includes(person.enterpriseId))) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: Slack workspace ${person.teamId}${person.enterpriseId ? ` (org ${person.enterpriseId})` : ''} is not in GENPLAT_SLACK_TEAMS`,
    };
  }
  if (onBehalfOf(opts.body).kind !== 'none') {
    return { ok: false, status: 403, message: `Forbidden: a Slack request cannot name ${ON_BEHALF_OF_KEY}` };
  }
  const owner = slackOwner(person);
  const nowS = Math.floor(opts.nowMs / 1000);
  return {
    ok: true,
    owner,
    authInfo: {
      token: '',
      clientId: owner,
      // The operator allowed the workspace: its people are trusted as far as the ceilings and policies allow.
      scopes: [...ALL_SCOPES],
      // A signed request is good for itself only; the expiry merely satisfies checks that want one.
      expiresAt: nowS + 300,
      extra: { owner, via: 'slack' } satisfies CallerExtra,
    },
  };
}
