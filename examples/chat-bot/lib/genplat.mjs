/**
 * The bot's side of genplat-mcp: one MCP client (the AI SDK's, `@ai-sdk/mcp`, Streamable HTTP) per person.
 *
 * - A person asking for something is named in every request's `params._meta["io.genplat/on_behalf_of"]`
 *   (`{id, name}`), with the bot's own bearer token: the server (GENPLAT_HTTP_DELEGATING) makes the caller
 *   `token:<bot>:<id>`, so jobs, quotes, tokens, budgets and the audit are that person's (docs/chat-bots.md).
 * - A person deciding an approval is relayed as a Slack person (carrier `slack`, docs/approvals.md): the request
 *   carries `params._meta.slack` and is signed with the Slack app's signing secret, as Slackbot's MCP client
 *   signs. The server refuses a decision resting on the credential of the request (a delegating bot deciding for
 *   its own people), so a lead's click cannot be relayed by delegation.
 *
 * The AI SDK's `callTool` takes no `_meta`: the clients add it in their `fetch` (every JSON-RPC message of a POST).
 */
import { createHmac } from 'node:crypto';
import { createMCPClient } from '@ai-sdk/mcp';

export const ON_BEHALF_OF = 'io.genplat/on_behalf_of';

/** Adds `meta` to `params._meta` of every JSON-RPC message in a JSON body. */
function withMeta(body, meta) {
  const add = (m) => ({ ...m, params: { ...(m.params ?? {}), _meta: { ...(m.params?._meta ?? {}), ...meta } } });
  const parsed = JSON.parse(body);
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(add) : add(parsed));
}

/** A fetch that rewrites each JSON POST body and adds the headers `sign` gives for the new body. */
function rewritingFetch(rewrite, sign = () => ({})) {
  return async (url, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(url, init);
    const body = rewrite(init.body);
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(sign(body))) headers.set(k, v);
    return fetch(url, { ...init, body, headers });
  };
}

/** Slack's v0 signature of `body` at `ts` (unix seconds) under `secret`. */
export function slackSignature(secret, ts, body) {
  return `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
}

/** A delegated person's id: the Slack user id (1-64 of letters, digits, `. _ @ + -`; never `:`). */
export function personId(slackUserId) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/.test(slackUserId)) throw new Error(`not a person id: ${slackUserId}`);
  return slackUserId;
}

/**
 * `genplat({ url (or a function giving it), token, slackSigningSecret? })`: `asPerson({id, name})` and `asSlackPerson({user_id, team_id})`
 * give a connected client (cached); `close()` closes them all.
 */
export function genplat({ url, token, slackSigningSecret, clientName = 'genplat-chat-bot' }) {
  const clients = new Map();
  const open = (key, transport) => {
    if (!clients.has(key)) {
      const at = typeof url === 'function' ? url() : url;
      const p = createMCPClient({ clientName, transport: { type: 'http', url: at, ...transport } });
      p.catch(() => clients.delete(key));
      clients.set(key, p);
    }
    return clients.get(key);
  };
  return {
    /** The client that acts for a person of this bot (delegation). */
    asPerson(person) {
      const named = { id: personId(person.id), ...(person.name ? { name: person.name.slice(0, 100) } : {}) };
      return open(`person:${named.id}`, {
        headers: { authorization: `Bearer ${token}` },
        fetch: rewritingFetch((body) => withMeta(body, { [ON_BEHALF_OF]: named })),
      });
    },
    /** The client that speaks as a Slack person (signed like Slackbot's MCP client); needs the signing secret. */
    asSlackPerson({ user_id, team_id, enterprise_id = null }) {
      if (!slackSigningSecret) throw new Error('no Slack signing secret to sign a Slack person’s request with');
      return open(`slack:${enterprise_id ?? team_id}:${user_id}`, {
        fetch: rewritingFetch(
          (body) => withMeta(body, { slack: { user_id, team_id, enterprise_id } }),
          (body) => {
            const ts = String(Math.floor(Date.now() / 1000));
            return {
              'x-slack-request-timestamp': ts,
              'x-slack-signature': slackSignature(slackSigningSecret, ts, body),
            };
          },
        ),
      });
    },
    async close() {
      const all = [...clients.values()];
      clients.clear();
      await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => {})));
    },
  };
}

/** A tool result's envelope: `structuredContent`, else the JSON of its first text block. */
export function envelopeOf(result) {
  if (result?.structuredContent) return result.structuredContent;
  const text = result?.content?.find?.((c) => c.type === 'text')?.text;
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The first text block of a tool result (an error's message). */
export const textOf = (result) => result?.content?.find?.((c) => c.type === 'text')?.text ?? '';
