/**
 * Streamable HTTP (chat-ops bots, remote hosts, a fleet behind a load balancer): the SDK's `createMcpHandler`,
 * stateless for both protocol eras. Every request is answered by a fresh MCP server built for its caller, and
 * everything that must outlive a request (jobs, consent tokens and their nonces, the consent key, reported
 * charges) is in the store, so any instance on the same PostgreSQL answers any request: no session affinity.
 *
 * In front of the handler, in this order: path → Host (DNS rebinding; the SDK's guard) → Origin (the SDK's
 * guard) → bearer token → per-token rate limit → in-flight caps. The body limit is the SDK adapter's.
 * Rate limits and in-flight caps are per instance (the SDK has no middleware for them on plain node:http and
 * they exist to stop runaway loops, not to meter).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type McpServer,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { createAuthenticator } from './http-auth.js';
import { allowedHostNames, allowedOriginHostNames } from './http-guards.js';
import { createRateLimiter, DEFAULT_MAX_BODY_BYTES } from './http-limits.js';

export const MCP_PATH = '/mcp';

/** Extra routes served next to `/mcp` (the webhook receiver): true when the route answered the request. */
export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, path: string) => boolean | Promise<boolean>;

export interface HttpServerOptions {
  host: string;
  /** 0 = a free port (tests). */
  port: number;
  tokens: readonly string[];
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
  /** Requests in flight in total on this instance. */
  maxInFlight: number;
  /** Requests in flight per caller; default an even share of `maxInFlight` among `tokens` (at least 1). */
  maxInFlightPerCaller?: number | undefined;
  rateLimitPerMin: number;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Builds the MCP server that answers one request of this caller, in the request's protocol era. */
  buildServer(owner: string, era: 'legacy' | 'modern'): McpServer;
  /** Change events for `subscriptions/listen` streams (default: in-process only; a fleet passes one over PostgreSQL). */
  bus?: ServerEventBus;
  /** Routes outside the MCP endpoint, checked before it (no bearer token: each route authenticates itself). */
  routes?: ExtraRoute[];
  log: Logger;
  /** Clock for rate windows (tests move it instead of sleeping). */
  now?: () => number;
}

export interface HttpServerHandle {
  /** e.g. http://127.0.0.1:8787/mcp */
  url: string;
  port: number;
  /** The SDK handler: `notify.resourceUpdated(uri)` publishes to subscribers through the bus. */
  handler: McpHttpHandler;
  /** Requests being answered right now (all callers). */
  inFlight(): number;
  /** Stops accepting, aborts what is in flight, closes the listener. */
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  // JSON-RPC shaped, as the SDK answers, so clients show the message.
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The caller behind a request, as the SDK hands it to the factory (`authInfo`). Never the token itself. */
function authInfoFor(owner: string): AuthInfo {
  return { token: '', clientId: owner, scopes: [], extra: { owner } };
}

/**
 * Starts listening.
 * @throws Error when no token is configured or the port cannot be bound.
 */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const authenticate = createAuthenticator(opts.tokens);
  const now = opts.now ?? Date.now;
  const limiter = createRateLimiter(opts.rateLimitPerMin, now);
  const log = opts.log;
  const validateHost = hostHeaderValidation([...allowedHostNames(opts.host, opts.allowedHosts)]);
  const validateOrigin = originValidation(allowedOriginHostNames(opts.host, opts.allowedHosts, opts.allowedOrigins));

  const handler = createMcpHandler(
    ({ authInfo, era }) => {
      const owner = authInfo?.clientId;
      // Unreachable: every request reaching the handler was authenticated below.
      if (!owner) throw new Error('unauthenticated request reached the MCP handler');
      return opts.buildServer(owner, era);
    },
    {
      ...(opts.bus ? { bus: opts.bus } : {}),
      maxRequestBodySize: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onerror: (err) => log.debug('mcp http exchange error', { error: err.message }),
    },
  );
  const serveMcp = toNodeHandler(handler, {
    maxRequestBodySize: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onerror: (err) => log.error('mcp http adapter error', { error: err.message }),
  });

  // Rounded down, so the shares of all callers fit in the total: each caller always gets its share.
  const perCaller =
    opts.maxInFlightPerCaller ?? Math.max(1, Math.floor(opts.maxInFlight / Math.max(1, new Set(opts.tokens).size)));
  const busy = new Map<string, number>();
  let total = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path !== MCP_PATH) {
      for (const route of opts.routes ?? []) if (await route(req, res, path)) return;
      return sendError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    }
    // The SDK's guards answer 403 themselves.
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    const owner = authenticate(req.headers.authorization);
    if (!owner) {
      // Guessing loops get throttled per address too; a 16+ character token is not guessable anyway.
      const wait = limiter.take(`addr:${req.socket.remoteAddress ?? '?'}`);
      if (wait > 0) return sendError(res, 429, 'Too many requests', { 'retry-after': String(wait) });
      return sendError(res, 401, 'Unauthorized: send Authorization: Bearer <GENPLAT_HTTP_TOKEN>', {
        'www-authenticate': 'Bearer realm="genplat-mcp"',
      });
    }
    const wait = limiter.take(`owner:${owner}`);
    if (wait > 0) {
      return sendError(res, 429, `Too many requests: limit ${opts.rateLimitPerMin} per minute per token`, {
        'retry-after': String(wait),
      });
    }
    const mine = busy.get(owner) ?? 0;
    if (mine >= perCaller) {
      log.warn('http request refused: per-caller in-flight limit reached', { owner, max: perCaller });
      return sendError(res, 503, `Too many requests in flight for this token (limit ${perCaller}); retry shortly`, {
        'retry-after': '5',
      });
    }
    if (total >= opts.maxInFlight) {
      log.warn('http request refused: in-flight limit reached', { max: opts.maxInFlight });
      return sendError(res, 503, `Too many requests in flight (limit ${opts.maxInFlight}); retry shortly`, {
        'retry-after': '5',
      });
    }
    busy.set(owner, mine + 1);
    total++;
    try {
      (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfoFor(owner);
      await serveMcp(req, res);
    } finally {
      total--;
      const left = (busy.get(owner) ?? 1) - 1;
      if (left > 0) busy.set(owner, left);
      else busy.delete(owner);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      log.error('http request failed', { error: String(err) });
      sendError(res, 500, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    handler,
    inFlight: () => total,
    async close() {
      await handler.close().catch((err) => log.warn('error closing the mcp handler', { error: String(err) }));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
