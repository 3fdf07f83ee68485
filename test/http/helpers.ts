/**
 * HTTP-mode fixture: the real `startHttpRuntime` (shared ledger, client, poller; one server per session)
 * against a 'test'-timing simulator, and real SDK clients over StreamableHTTPClientTransport with a bearer
 * token in `requestInit.headers`, as a chat-ops host would connect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Config, type HttpConfig, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';

export const TOKEN_A = 'token-a-0123456789abcdef';
export const TOKEN_B = 'token-b-0123456789abcdef';

export interface FixtureOptions {
  http?: Partial<HttpConfig>;
  confirm?: Config['confirm'];
  now?: () => number;
}

export interface HttpFixture {
  sim: Simulator;
  rt: HttpRuntime;
  url: string;
  config: Config;
  connect(token: string, o?: { onElicit?: (req: ElicitRequest) => Promise<ElicitResult> }): Promise<TestClient>;
  /** A raw request to the endpoint (for status codes the SDK client hides); node:http, so Host can be set. */
  raw(init: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface TestClient {
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
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const client = new Client(
        { name: 'http-test', version: '0.0.0' },
        { capabilities: o.onElicit ? { elicitation: { form: {} } } : {} },
      );
      if (o.onElicit) client.setRequestHandler('elicitation/create', (req) => o.onElicit!(req));
      await client.connect(transport);
      // The SDK client validates structuredContent only for tools it has listed.
      await client.listTools();
      const tc: TestClient = {
        client,
        transport,
        call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
        close: () => client.close(),
      };
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
