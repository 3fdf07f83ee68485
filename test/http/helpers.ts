/**
 * HTTP-mode fixture: the real `startHttpRuntime` (shared ledger, client, poller; a fresh server per request)
 * against a 'test'-timing simulator, and real SDK clients over StreamableHTTPClientTransport with a bearer
 * token in `requestInit.headers`, as a chat-ops host would connect. The client speaks the era of the run
 * (`GENPLAT_TEST_ERA`, set per vitest project): 2025-11-25 (`initialize`) or 2026-07-28 (`server/discover`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, ClientCapabilities, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Config, type HttpConfig, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { sharedValidator } from '../helpers/shared-validator.js';

export const TOKEN_A = 'token-a-0123456789abcdef';
export const TOKEN_B = 'token-b-0123456789abcdef';

export type Era = 'legacy' | 'modern';

/** The era this run's clients speak (vitest.config.ts runs test/http once per era). */
export function testEra(): Era {
  return process.env.GENPLAT_TEST_ERA === 'modern' ? 'modern' : 'legacy';
}

/** SDK v2 client options for an era: `modern` pins 2026-07-28, `legacy` is the default 2025-11-25 handshake. */
export function eraOptions(era: Era): { versionNegotiation?: { mode: { pin: '2026-07-28' } } } {
  return era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
}

export interface ConnectOptions {
  onElicit?: (req: ElicitRequest) => Promise<ElicitResult>;
  /** Default: this run's era. */
  era?: Era;
  /** Default: the fixture's own URL (a fleet test passes its proxy's). */
  url?: string;
  /** Extra client capabilities (elicitation is added by `onElicit`). */
  capabilities?: ClientCapabilities;
  /** The transport's fetch (a Slack-signing or delegating client rewrites each POST; see people-clients.ts). */
  fetch?: FetchLike;
}

export interface FixtureOptions {
  http?: Partial<HttpConfig>;
  /** Extra environment for loadConfig (identity settings: Slack, delegation, the people file). */
  env?: Record<string, string>;
  confirm?: Config['confirm'];
  now?: () => number;
}

export interface HttpFixture {
  sim: Simulator;
  rt: HttpRuntime;
  url: string;
  config: Config;
  connect(token: string, o?: ConnectOptions): Promise<TestClient>;
  /** A raw request to the endpoint (for status codes the SDK client hides); node:http, so Host can be set. */
  raw(init: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface TestClient {
  era: Era;
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A 2026-07-28 client's first request (what the v2 client sends with version negotiation pinned). */
export const discoverBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

/** Headers a 2026-07-28 request carries besides MCP_HEADERS (the SDK refuses a body/header mismatch). */
export const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };

/** The first request of each era, for gate tests that must hold on both. */
export const FIRST_REQUESTS = [
  { era: 'legacy', body: initializeBody, headers: {} as Record<string, string> },
  { era: 'modern', body: discoverBody, headers: MODERN_HEADERS as Record<string, string> },
] as const;

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function startHttpFixture(opts: FixtureOptions = {}): Promise<HttpFixture> {
  const sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-http-'));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: `${TOKEN_A},${TOKEN_B}`,
    ...opts.env,
  });
  const config: Config = {
    ...base,
    vendors: sim.vendors,
    confirm: opts.confirm ?? { mode: 'always' },
    logLevel: 'error',
    http: { ...base.http, ...opts.http },
  };
  const log = createLogger('error', () => {});
  const rt = await startHttpRuntime(config, log, { pollIntervalMs: 20, ...(opts.now ? { now: opts.now } : {}) });
  const url = rt.http.url;
  const clients: TestClient[] = [];

  return {
    sim,
    rt,
    url,
    config,
    async connect(token, o = {}) {
      const tc = await connectClient(o.url ?? url, token, o);
      clients.push(tc);
      return tc;
    },
    raw: (init) => rawRequest(url, init),
    async close() {
      for (const c of clients) await c.close().catch(() => {});
      await rt.close();
      await sim.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** A real SDK v2 client over Streamable HTTP with a bearer token, listed once (see below). */
export async function connectClient(url: string, token: string, o: ConnectOptions = {}): Promise<TestClient> {
  const era = o.era ?? testEra();
  // An empty token sends no Authorization header (a Slack-signed client has none).
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  const client = new Client(
    { name: 'http-test', version: '0.0.0' },
    {
      jsonSchemaValidator: sharedValidator,
      capabilities: { ...o.capabilities, ...(o.onElicit ? { elicitation: { form: {} } } : {}) },
      ...eraOptions(era),
    },
  );
  const onElicit = o.onElicit;
  if (onElicit) client.setRequestHandler('elicitation/create', (req) => onElicit(req));
  await client.connect(transport);
  // The SDK client validates structuredContent only for tools it has listed.
  await client.listTools();
  return {
    era,
    client,
    transport,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

export function sc(r: CallToolResult): Record<string, unknown> & { status?: string; handle?: string } {
  return (r.structuredContent ?? {}) as Record<string, unknown> & { status?: string; handle?: string };
}

export function text(r: CallToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request, whole answer. An SSE answer (initialize) is read until the server ends it, which it does
 * after the JSON-RPC response. The connection is not reused (agent: false), so a 413 cannot poison others.
 */
export function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'POST', headers: { ...MCP_HEADERS, ...init.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
