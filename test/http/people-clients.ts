/**
 * Clients that speak for people (issue 28), for real SDK clients over Streamable HTTP: a `fetch` that does to
 * every POST what Slackbot's MCP client does (the person in `params._meta.slack`, the body signed with the Slack
 * app's signing secret), or what a delegating bot does (`params._meta["io.genplat/on_behalf_of"]`).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { slackSignature } from '../../src/auth/slack-signature.js';

export const SLACK_SECRET = 'slack-signing-secret-0123456789ab';
export const OLD_SLACK_SECRET = 'old-slack-signing-secret-01234567';

export interface SlackPersonIds {
  user_id: string;
  team_id: string;
  enterprise_id?: string | null;
}

/** Adds `meta` to `params._meta` of every JSON-RPC message of a JSON body. */
function withMeta(body: string, meta: Record<string, unknown>): string {
  const add = (m: Record<string, unknown>) => {
    const params = (m.params ?? {}) as Record<string, unknown>;
    return { ...m, params: { ...params, _meta: { ...((params._meta as object) ?? {}), ...meta } } };
  };
  const parsed = JSON.parse(body) as Record<string, unknown> | Record<string, unknown>[];
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(add) : add(parsed));
}

/** A fetch that rewrites each POST body with `rewrite` and adds the headers `sign` returns for the new body. */
function rewritingFetch(
  rewrite: (body: string) => string,
  sign: (body: string) => Record<string, string> = () => ({}),
): FetchLike {
  return async (url, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(url, init);
    const body = rewrite(init.body);
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(sign(body))) headers.set(k, v);
    return fetch(url, { ...init, body, headers });
  };
}

/** Slack's headers for `body` signed now (or at `at`, seconds) with `secret`. */
export function slackHeaders(body: string, secret = SLACK_SECRET, at = Math.floor(Date.now() / 1000)) {
  const ts = String(at);
  return { 'x-slack-request-timestamp': ts, 'x-slack-signature': slackSignature(secret, ts, body) };
}

/** What Slackbot's MCP client sends for `person`; `nowS`: the clock it signs with (a test's moved server clock). */
export function slackFetch(
  person: SlackPersonIds,
  secret = SLACK_SECRET,
  nowS = () => Math.floor(Date.now() / 1000),
): FetchLike {
  return rewritingFetch(
    (body) => withMeta(body, { slack: { enterprise_id: null, ...person } }),
    (body) => slackHeaders(body, secret, nowS()),
  );
}

/** What a delegating bot sends when it acts for `person` (its bearer token rides in the client's own headers). */
export function delegatingFetch(person: { id: string; name?: string }): FetchLike {
  return rewritingFetch((body) => withMeta(body, { 'io.genplat/on_behalf_of': person }));
}
