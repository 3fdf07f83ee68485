/**
 * A fleet of HTTP instances as issue 11 deploys it: N real `startHttpRuntime`s (each its own poller, platform
 * client, listener and state dir) on ONE PostgreSQL database, one simulator on loopback for all (its request
 * log is the referee), and a round-robin proxy in front that knows nothing of MCP: no session affinity.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { TOKEN_A, TOKEN_B } from '../http/helpers.js';

/**
 * The fleet's two callers' bearer tokens, re-exported for fleet tests that must not import test/http/helpers
 * (importing it enrols a file in the per-era `modern` project: vitest.config.ts).
 */
export { TOKEN_A as FLEET_TOKEN_A, TOKEN_B as FLEET_TOKEN_B };

export interface RoundRobinProxy {
  url: string;
  /** Which instance each request went to, in order (index into the upstream list). */
  served: number[];
  /** `undefined` = round robin; a number = every request to that instance until changed. */
  pin: number | undefined;
  close(): Promise<void>;
}

/**
 * Forwards each request to the next upstream, streaming the answer (SSE included). An upstream that refuses
 * the connection is skipped, as a load balancer's health check would; one that dies mid-answer cuts the
 * answer, and the client sees an error and retries through the proxy.
 */
export async function startRoundRobinProxy(upstreams: () => readonly (string | undefined)[]): Promise<RoundRobinProxy> {
  let next = 0;
  const served: number[] = [];
  const proxy: RoundRobinProxy = { url: '', served, pin: undefined, close: async () => {} };

  function forward(body: Buffer, req: IncomingMessage, res: ServerResponse, attempt: number): void {
    const list = upstreams();
    if (attempt >= list.length) {
      res.writeHead(502).end('no upstream');
      return;
    }
    const i = proxy.pin ?? next++ % list.length;
    const target = list[i];
    if (!target) {
      forward(body, req, res, attempt + 1);
      return;
    }
    const url = new URL(req.url ?? '/', target);
    const up = request(url, { method: req.method, headers: { ...req.headers, host: url.host }, agent: false }, (r) => {
      served.push(i);
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
      r.on('error', () => res.destroy());
      r.on('aborted', () => res.destroy());
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (!res.headersSent && err.code === 'ECONNREFUSED' && proxy.pin === undefined) {
        forward(body, req, res, attempt + 1);
      } else res.destroy();
    });
    // The client gave up (closed its stream): so does the upstream request.
    res.on('close', () => up.destroy());
    up.end(body);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(Buffer.concat(chunks), req, res, 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

export interface HttpFleet {
  sim: Simulator;
  /** `undefined` once killed. */
  instances: (HttpRuntime | undefined)[];
  proxy: RoundRobinProxy;
  /** Closes instance i (its listener, in-flight requests, poller, store connections): a crash or a deploy. */
  kill(i: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpFleet(o: {
  size: number;
  databaseUrl: string;
  confirm?: Config['confirm'];
  env?: Record<string, string>;
  /** Each instance's poll interval (default 20 ms: sim 'test' jobs finish in ~20 ms). */
  pollIntervalMs?: number;
  /**
   * Webhooks on (`loopbackWebhooks`): each instance hands out callback URLs to its own listener, so the
   * simulator calls back the instance that sent the POST; hints reach the others over the store's pub/sub.
   */
  webhooks?: boolean;
}): Promise<HttpFleet> {
  const sim = await startSimulator({ timing: 'test', ...(o.webhooks ? { allowLoopbackWebhooks: true } : {}) });
  setTrustedMediaOrigins([sim.origin]);
  const dirs: string[] = [];
  const instances: (HttpRuntime | undefined)[] = [];
  const log = createLogger('error', () => {});
  for (let i = 0; i < o.size; i++) {
    const stateDir = await mkdtemp(join(tmpdir(), 'genplat-http-fleet-'));
    dirs.push(stateDir);
    const base = loadConfig(parseCli(['--http', '--port', '0']), {
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_STATE_DIR: stateDir,
      GENPLAT_DATABASE_URL: o.databaseUrl,
      GENPLAT_HTTP_TOKEN: `${TOKEN_A},${TOKEN_B}`,
      ...o.env,
    });
    const plain: Config = {
      ...base,
      vendors: sim.vendors,
      confirm: o.confirm ?? { mode: 'always' },
      logLevel: 'error',
    };
    // GENPLAT_APPROVALS in `env`: the policy read as the bin reads it at start-up.
    const config = base.approvalsFile ? await withApprovalPolicy(plain) : plain;
    // Started one after the other: the first migrates the schema, the rest open it.
    instances.push(
      await startHttpRuntime(config, log, {
        pollIntervalMs: o.pollIntervalMs ?? 20,
        ...(o.webhooks ? { loopbackWebhooks: true } : {}),
      }),
    );
  }
  const proxy = await startRoundRobinProxy(() => instances.map((rt) => rt?.http.url));
  return {
    sim,
    instances,
    proxy,
    async kill(i) {
      const rt = instances[i];
      instances[i] = undefined;
      await rt?.close();
    },
    async close() {
      await proxy.close();
      await Promise.allSettled(instances.map((rt) => rt?.close()));
      await sim.close();
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    },
  };
}
