/**
 * Review of issue 28 (hostile): the person a request names is read by our own JSON.parse of the raw bytes
 * (src/transports/raw-body.ts `parseJsonBody`: `Buffer#toString('utf8')`, which KEEPS a leading U+FEFF), while the
 * SDK adapter decodes the same bytes with `new TextDecoder()` (which STRIPS a UTF-8 byte-order mark) and serves
 * the request. A body prefixed with a BOM is therefore "no JSON" to the identity step (so no person is named,
 * no refusal applies) but a perfectly good request to the SDK: `io.genplat/on_behalf_of` is silently dropped.
 *
 * - a credential NOT marked delegating that names a person is served (docs/chat-bots.md promises 403);
 * - a delegating bot acting for alice is served as the bot itself (`token:chatbot`), so everything done for
 *   alice lands in the bot's own namespace, shared by every person whose request took that path.
 *
 * Fix: parse what the SDK parses (strip a leading BOM, or decode with the same TextDecoder), or refuse a body the
 * identity step cannot parse when it carries a bearer token of a delegating bot / any Slack header.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type HttpServerHandle, startHttpServer } from '../../src/transports/http.js';
import { FIRST_REQUESTS, rawRequest } from '../http/helpers.js';

const BOT = 'chatbot-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
let http: HttpServerHandle;
const built: string[] = [];

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
    buildServer(owner) {
      built.push(owner);
      return new McpServer({ name: 'probe', version: '0' }, { capabilities: {} });
    },
  });
});
afterAll(() => http.close());

const named = (body: string, person: object) => {
  const m = JSON.parse(body) as { params: { _meta?: object } };
  m.params._meta = { ...m.params._meta, 'io.genplat/on_behalf_of': person };
  return Buffer.concat([BOM, Buffer.from(JSON.stringify(m))]);
};

describe.each(FIRST_REQUESTS)('$era, a body starting with a UTF-8 byte-order mark', ({ body, headers }) => {
  const post = (b: Buffer, token: string) =>
    rawRequest(http.url, { headers: { ...headers, authorization: `Bearer ${token}` }, body: b });

  it('a credential not marked delegating that names a person is refused (403), as without the BOM', async () => {
    built.length = 0;
    const r = await post(named(body, { id: 'carol' }), OTHER);
    // Today: 200, served as token:other, the person named was never judged.
    expect({ status: r.status, built }).toEqual({ status: 403, built: [] });
  });

  it("a delegating bot's person is that person, never the bot itself", async () => {
    built.length = 0;
    const r = await post(named(body, { id: 'alice' }), BOT);
    // Either the request is refused, or it is alice's; never silently the bot's.
    if (r.status === 200) expect(built).toEqual(['token:chatbot:alice']);
    else expect(built).toEqual([]);
  });
});
