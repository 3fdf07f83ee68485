/**
 * Review of issue 28 (hostile): `cleanName` (src/people/names.ts) promises "1-100 printable characters, no control
 * characters (it reaches CSV files and chat messages)" but only refuses C0/C1 controls. Unicode format and
 * separator characters pass: bidi overrides/isolates (U+202A-U+202E, U+2066-U+2069) reorder what an approver
 * reads next to the caller id on the approval page / card ("Ada … (token:chatbot:mallory)" rendered reversed or
 * moved), U+2028/U+2029 break lines in chat messages, zero-width characters make two names look equal. A
 * delegating bot's `name` (`io.genplat/on_behalf_of.name`) reaches `buildServer`'s names, then approval messages.
 *
 * Fix: refuse general categories Cc, Cf, Zl, Zp (and Cs/Co/Cn) in `cleanName`, e.g. /[\p{C}\p{Zl}\p{Zp}]/u.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type HttpServerHandle, startHttpServer } from '../../src/transports/http.js';
import { FIRST_REQUESTS, rawRequest } from '../http/helpers.js';

const BOT = 'chatbot-token-0123456789abcdef';
let http: HttpServerHandle;
const built: { owner: string; names: object }[] = [];

beforeAll(async () => {
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    tokens: [BOT],
    tokenNames: { chatbot: BOT },
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

it('a display name with bidi, line-separator or zero-width characters is dropped like a control character', async () => {
  const [{ body, headers }] = FIRST_REQUESTS;
  const names = [
    'Ada Lovelace\u202E', // RIGHT-TO-LEFT OVERRIDE
    'Ada\u2066 (slack:T1:U_ADA)\u2069', // isolates
    'Ada\u2028Approved by the CFO', // LINE SEPARATOR
    'Ad\u200Ba', // ZERO WIDTH SPACE
  ];
  built.length = 0;
  for (const [i, name] of names.entries()) {
    const m = JSON.parse(body) as { params: { _meta?: object } };
    m.params._meta = { ...m.params._meta, 'io.genplat/on_behalf_of': { id: `p${i}`, name } };
    const r = await rawRequest(http.url, {
      headers: { ...headers, authorization: `Bearer ${BOT}` },
      body: JSON.stringify(m),
    });
    expect(r.status).toBe(200);
  }
  // Today: every one of these names is kept as the person's label.
  expect(built.map((b) => b.names)).toEqual([{}, {}, {}, {}]);
});
