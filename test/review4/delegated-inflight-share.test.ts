/**
 * Review of issue 28 (hostile): the in-flight share and the per-minute rate limit are keyed by the PERSON
 * (src/transports/http.ts `busy.get(owner)`, `limiter.take(\`owner:${owner}\`)`), but the shares are still
 * computed over the number of static tokens (`callers = new Set(opts.tokens).size (+10 with OAuth)`). A delegating
 * bot mints people at will (`io.genplat/on_behalf_of`), so one bot token — or one bot in a loop — gets one share
 * per person it names and can take every slot of GENPLAT_HTTP_MAX_INFLIGHT: the other tokens get 503.
 * docs/http-and-fleet.md promises "each token may have an even share … so one caller in a loop never locks the
 * others out" and "120 requests per minute per token".
 *
 * Fix: charge a delegated person's request to its bot's share too (`busy` and the limiter keyed by the
 * credential as well as by the person: a person's share inside the bot's), and count Slack as one caller.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type HttpServerHandle, startHttpServer } from '../../src/transports/http.js';
import { rawRequest } from '../http/helpers.js';

const BOT = 'chatbot-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';
let http: HttpServerHandle;
let release: () => void = () => {};
const held = new Promise<void>((r) => {
  release = r;
});

beforeAll(async () => {
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    tokens: [BOT, OTHER],
    tokenNames: { chatbot: BOT, other: OTHER },
    delegation: { owners: ['token:chatbot'], clientIds: [] },
    allowedOrigins: [],
    allowedHosts: [],
    // Two tokens: one slot each (the default share).
    maxInFlight: 2,
    rateLimitPerMin: 1000,
    log: createLogger('error', () => {}),
    buildServer() {
      const server = new McpServer({ name: 'probe', version: '0' }, { capabilities: {} });
      // A long request (what a 50 s wait_for_jobs is): answered once the test releases it.
      server.registerTool('hold', { description: 'waits' }, async () => {
        await held;
        return { content: [{ type: 'text', text: 'done' }] };
      });
      return server;
    },
  });
});
afterAll(async () => {
  release();
  await http.close();
});

const call = (token: string, person?: string) =>
  rawRequest(http.url, {
    headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'hold',
        arguments: {},
        ...(person ? { _meta: { 'io.genplat/on_behalf_of': { id: person } } } : {}),
      },
    }),
  });

/** Polls (bounded: 10 s) until `done()`; never asserts on time. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

it("a delegating bot cannot take the other token's in-flight share by naming a second person", async () => {
  const settled = { second: false, other: false };
  const first = call(BOT, 'p1');
  await until(() => http.inFlight() >= 1);
  const second = call(BOT, 'p2').finally(() => {
    settled.second = true;
  });
  await until(() => settled.second || http.inFlight() >= 2);
  // The other token's one request must be served (its share), whatever the bot does.
  const other = call(OTHER).finally(() => {
    settled.other = true;
  });
  await until(() => settled.other || http.inFlight() >= 3 || (settled.second && http.inFlight() >= 2));
  release();
  const [a, b, o] = await Promise.all([first, second, other]);
  expect(a.status).toBe(200);
  // Today: the bot's second person took the last slot (b 200) and the other token got 503.
  expect({ bot_second: b.status, other_token: o.status }).toEqual({ bot_second: 503, other_token: 200 });
});
