/**
 * What the server built for a request knows of its person (issue 28 item 3): `startHttpServer` hands
 * `buildServer` the caller id and the names the request carried — a delegating bot's `name` for its person,
 * nothing of the bot's own — so approval messages can say who asks. The server here is a real McpServer that
 * answers `initialize`; the test records what it was built for.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type HttpServerHandle, startHttpServer } from '../../src/transports/http.js';
import { FIRST_REQUESTS, rawRequest } from './helpers.js';

const BOT = 'chatbot-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';
let http: HttpServerHandle;
const built: { owner: string; names: object }[] = [];

beforeAll(async () => {
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    tokens: [BOT, OTHER],
    tokenNames: { chatbot: BOT, other: OTHER },
    delegation: { owners: ['token:chatbot'], clientIds: [] },
    allowedOrigins: [],
    allowedHosts: [],
    maxInFlight: 10,
    rateLimitPerMin: 1000,
    log: createLogger('error', () => {}),
    buildServer(owner, _era, names) {
      built.push({ owner, names });
      return new McpServer({ name: 'probe', version: '0' }, { capabilities: {} });
    },
  });
});
afterAll(() => http.close());

const named = (body: string, person: object) => {
  const m = JSON.parse(body) as { params: { _meta?: object } };
  m.params._meta = { ...m.params._meta, 'io.genplat/on_behalf_of': person };
  return JSON.stringify(m);
};

describe.each(FIRST_REQUESTS)('$era', ({ body, headers }) => {
  it("the bot's person with its name; the bot itself without; a refused one builds nothing", async () => {
    built.length = 0;
    const post = (b: string, token: string) =>
      rawRequest(http.url, { headers: { ...headers, authorization: `Bearer ${token}` }, body: b });
    expect((await post(named(body, { id: 'alice', name: ' Alice Example ' }), BOT)).status).toBe(200);
    expect((await post(named(body, { id: 'bob', name: 'bad\u0007name' }), BOT)).status).toBe(200);
    expect((await post(body, BOT)).status).toBe(200);
    expect((await post(named(body, { id: 'carol' }), OTHER)).status).toBe(403);
    expect(built).toEqual([
      { owner: 'token:chatbot:alice', names: { name: 'Alice Example' } },
      { owner: 'token:chatbot:bob', names: {} },
      { owner: 'token:chatbot', names: {} },
    ]);
  });
});
