/**
 * Review of issue 28 (hostile): with Slack auth on, ANY request carrying a Slack header has its whole body (up to
 * 1 MiB) read into memory before anything is checked (src/transports/http.ts → readBody → checkSlackRequest),
 * by anyone, unauthenticated, with no bound on how many such reads run at once (the throttle only counts
 * failures already answered; the in-flight caps come after identity). Yet two of the three 401s need no body at
 * all: a missing header and a timestamp outside ±5 min are known from the headers. A client that declares a
 * 1 MiB body with a stale timestamp (or none) and trickles it (slowloris) holds the connection and the buffer.
 *
 * Fix: judge the headers first (missing / non-numeric / stale → 401 without reading), and bound concurrent
 * unverified Slack reads per instance (and per address).
 */
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type HttpServerHandle, startHttpServer } from '../../src/transports/http.js';
import { SLACK_SECRET } from '../http/people-clients.js';

let http: HttpServerHandle;

beforeAll(async () => {
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    tokens: [],
    slack: { signingSecrets: [SLACK_SECRET], teams: ['T1'] },
    allowedOrigins: [],
    allowedHosts: [],
    maxInFlight: 10,
    rateLimitPerMin: 1000,
    log: createLogger('error', () => {}),
    buildServer: () => new McpServer({ name: 'probe', version: '0' }, { capabilities: {} }),
  });
});
afterAll(() => http.close());

/** Sends the headers and the first bytes of a body declared 1 MiB long; resolves with the first answer line. */
function trickle(headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(http.port, '127.0.0.1');
    let got = '';
    // Generous bound: the answer needs no body, so it comes at once; without it we give up after 10 s.
    const bound = setTimeout(() => {
      s.destroy();
      resolve('no answer while the body is still coming');
    }, 10_000);
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        clearTimeout(bound);
        s.destroy();
        resolve(got.split('\r\n')[0] ?? '');
      }
    });
    s.on('error', reject);
    const extra = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    s.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${1024 * 1024}\r\n${extra}\r\n{"jsonrpc":`,
    );
  });
}

it('a Slack request whose timestamp is stale is refused from its headers, before its body is read', async () => {
  const stale = String(Math.floor(Date.now() / 1000) - 3600);
  expect(await trickle({ 'x-slack-request-timestamp': stale, 'x-slack-signature': 'v0=00' })).toMatch(
    /^HTTP\/1\.1 401/,
  );
});

it('a Slack request without a signature is refused from its headers, before its body is read', async () => {
  expect(await trickle({ 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)) })).toMatch(
    /^HTTP\/1\.1 401/,
  );
});
