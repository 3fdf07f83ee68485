/**
 * Parsing of the identity settings of issue 28 (pure: src/config.ts reads the environment and hands the raw
 * strings in). Messages never quote a signing secret.
 */
import type { DelegationConfig } from './delegation.js';
import { namedTokenOwner } from './identity.js';
import type { SlackAuthConfig } from './slack-auth.js';

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Slack app signing secrets are 32 hex characters today; anything shorter than 16 is a mistake. */
const MIN_SECRET = 16;
const WORKSPACE = /^[TE][A-Z0-9]{1,31}$/;

/**
 * `GENPLAT_SLACK_SIGNING_SECRETS` (comma-separated: a rotation, or several Slack apps) turns Slack identity auth on;
 * it needs `GENPLAT_SLACK_TEAMS` (team ids `T…` and/or Enterprise Grid org ids `E…`): a signing secret proves the
 * Slack app, not which workspaces installed it, so the allowed workspaces are never "all".
 */
export function parseSlackAuth(
  secretsRaw: string | undefined,
  teamsRaw: string | undefined,
  problems: string[],
): SlackAuthConfig | undefined {
  const signingSecrets = list(secretsRaw);
  const teams = list(teamsRaw);
  if (signingSecrets.length === 0) {
    if (teams.length > 0)
      problems.push('GENPLAT_SLACK_TEAMS set without GENPLAT_SLACK_SIGNING_SECRETS: Slack auth stays off');
    return undefined;
  }
  const before = problems.length;
  signingSecrets.forEach((s, i) => {
    if (s.length < MIN_SECRET || /\s/.test(s)) {
      problems.push(
        `GENPLAT_SLACK_SIGNING_SECRETS: secret #${i + 1} must be the Slack app's signing secret (${MIN_SECRET}+ characters, no spaces; Basic Information → App Credentials)`,
      );
    }
  });
  if (teams.length === 0) {
    problems.push(
      'GENPLAT_SLACK_SIGNING_SECRETS needs GENPLAT_SLACK_TEAMS: the Slack workspaces (T…) or Enterprise Grid orgs (E…) whose people may call',
    );
  }
  for (const t of teams) {
    if (!WORKSPACE.test(t))
      problems.push(`GENPLAT_SLACK_TEAMS: "${t}" is not a Slack team id (T…) or enterprise id (E…)`);
  }
  return problems.length > before ? undefined : { signingSecrets, teams };
}

/**
 * `GENPLAT_HTTP_DELEGATING`: comma-separated credentials that may act for people. A plain name is a named static
 * token of `GENPLAT_HTTP_TOKEN` (owner `token:<name>`); `client:<id>` is an OAuth client id (its tokens' `client_id`
 * or `azp`). An unnamed static token cannot delegate (its people would have no stable namespace).
 */
export function parseDelegating(
  raw: string | undefined,
  tokenNames: Readonly<Record<string, string>>,
  problems: string[],
): DelegationConfig {
  const owners: string[] = [];
  const clientIds: string[] = [];
  for (const entry of list(raw)) {
    if (entry.startsWith('client:')) {
      const id = entry.slice('client:'.length);
      if (!/^\S{1,200}$/.test(id))
        problems.push(`GENPLAT_HTTP_DELEGATING: "${entry}" needs an OAuth client id after client:`);
      else clientIds.push(id);
    } else if (Object.hasOwn(tokenNames, entry)) owners.push(namedTokenOwner(entry));
    else {
      problems.push(
        `GENPLAT_HTTP_DELEGATING: "${entry}" is not the name of a token in GENPLAT_HTTP_TOKEN (write name=<token> there) nor client:<OAuth client id>`,
      );
    }
  }
  return { owners, clientIds };
}
