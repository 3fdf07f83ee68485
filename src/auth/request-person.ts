/**
 * The person a request names in its own body (issue 28 items 1-2). Nothing here proves anything: the Slack
 * person counts only once the request's Slack signature verified (src/auth/slack-auth.ts), and a bot's
 * `io.genplat/on_behalf_of` only for a credential the operator marked as delegating (src/auth/delegation.ts).
 * Every request names its own person; nothing is remembered per connection.
 */
import { cleanName } from '../people/names.js';

/** The `_meta` key a delegating bot names its person with: `{ "id": "<person id>", "name"?: "<display name>" }`. */
export const ON_BEHALF_OF_KEY = 'io.genplat/on_behalf_of';

/**
 * A person id a bot may name: letters, digits and `. _ @ + -`, 1-64 characters, starting with a letter or a digit.
 * No `:`, so a bot can never spell another namespace (`slack:…`, `oidc:…`, `token:…`) or a sub-namespace.
 */
export const PERSON_ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/** A Slack id (team, enterprise, user): Slack's are upper-case letters and digits; `_` and `-` are tolerated. */
const SLACK_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** `params._meta` of a single JSON-RPC message, or undefined (a batch, a non-object, no params). */
export function requestMeta(body: unknown): Record<string, unknown> | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  return meta as Record<string, unknown>;
}

export interface SlackPerson {
  teamId: string;
  userId: string;
  enterpriseId?: string;
}

/** `params._meta.slack.{user_id, team_id, enterprise_id}`; undefined when missing or malformed. */
export function slackPersonOf(body: unknown): SlackPerson | undefined {
  const slack = requestMeta(body)?.slack;
  if (slack === null || typeof slack !== 'object' || Array.isArray(slack)) return undefined;
  const { user_id: userId, team_id: teamId, enterprise_id: enterpriseId } = slack as Record<string, unknown>;
  if (typeof userId !== 'string' || !SLACK_ID.test(userId)) return undefined;
  if (typeof teamId !== 'string' || !SLACK_ID.test(teamId)) return undefined;
  // Slack sends null outside Enterprise Grid.
  if (enterpriseId === null || enterpriseId === undefined || enterpriseId === '') return { teamId, userId };
  if (typeof enterpriseId !== 'string' || !SLACK_ID.test(enterpriseId)) return undefined;
  return { teamId, userId, enterpriseId };
}

export type NamedPerson =
  | { kind: 'none' }
  | { kind: 'invalid'; why: string }
  | { kind: 'person'; id: string; name?: string };

/** What `io.genplat/on_behalf_of` names: nothing, a well-formed person, or something to refuse (and why). */
export function onBehalfOf(body: unknown): NamedPerson {
  // A batch cannot say whose each message is: a key inside one is refused rather than applied to all.
  if (Array.isArray(body)) {
    return body.some((m) => requestMeta(m)?.[ON_BEHALF_OF_KEY] !== undefined)
      ? { kind: 'invalid', why: `${ON_BEHALF_OF_KEY} cannot be used in a JSON-RPC batch` }
      : { kind: 'none' };
  }
  const raw = requestMeta(body)?.[ON_BEHALF_OF_KEY];
  if (raw === undefined) return { kind: 'none' };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { kind: 'invalid', why: `${ON_BEHALF_OF_KEY} must be an object {"id": "<person id>", "name"?: "…"}` };
  }
  const { id, name } = raw as Record<string, unknown>;
  if (typeof id !== 'string' || !PERSON_ID.test(id)) {
    return {
      kind: 'invalid',
      why: `${ON_BEHALF_OF_KEY}.id must be 1-64 letters, digits or . _ @ + - (no ":"; a bot names people of its own namespace only)`,
    };
  }
  const display = cleanName(name);
  return { kind: 'person', id, ...(display ? { name: display } : {}) };
}
