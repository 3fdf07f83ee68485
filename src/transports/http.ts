/**
 * Streamable HTTP transport (chat-ops): stateful sessions over node:http, one McpServer per session, all
 * sharing the caller-independent parts (ledger, platform client, poller, catalog) that the caller passes in
 * through `newSession`.
 *
 * Every request, in this order: path `/mcp` → Host (DNS rebinding) → Origin → bearer token → per-token rate
 * limit → body (≤ 1 MiB, JSON) → session. Sessions need the SDK's stateful mode because elicitation needs the
 * client's declared capabilities (mcp-notes 0.7). A session belongs to the token that created it: any other
 * token gets the same 404 as an unknown session, so session ids cannot be probed either. Sessions are capped
 * per caller as well as in total, so one token cannot take every session (`maxSessionsPerCaller`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { createAuthenticator } from './http-auth.js';
import { allowedHostNames, hostAllowed, originAllowed } from './http-guards.js';
import { BodyTooLargeError, createRateLimiter, DEFAULT_MAX_BODY_BYTES, readBody } from './http-limits.js';

export const MCP_PATH = '/mcp';

export interface HttpServerOptions {
  host: string;
  /** 0 = a free port (tests). */
  port: number;
  tokens: readonly string[];
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
  /** Open sessions in total. */
  maxSessions: number;
  /** Open sessions per caller; default an even share of `maxSessions` among `tokens` (at least 1). */
  maxSessionsPerCaller?: number | undefined;
  sessionIdleMs: number;
  rateLimitPerMin: number;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Builds the MCP server of one session for this caller. */
  newSession(owner: string): { server: McpServer; close(): Promise<void> };
  log: Logger;
  /** Clock for idle expiry and rate windows (tests move it instead of sleeping). */
  now?: () => number;
}

export interface HttpServerHandle {
  /** e.g. http://127.0.0.1:8787/mcp */
  url: string;
  port: number;
  sessionCount(): number;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

interface Session {
  id: string;
  owner: string;
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  lastSeen: number;
  /** POST/DELETE requests being answered: a session in the middle of a 50 s wait is not idle. */
  busy: number;
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  // JSON-RPC shaped, as the SDK's own transport answers, so clients show the message.
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Starts listening.
 * @throws Error when no token is configured or the port cannot be bound.
 */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const authenticate = createAuthenticator(opts.tokens);
  const now = opts.now ?? Date.now;
  const hosts = allowedHostNames(opts.host, opts.allowedHosts);
  const limiter = createRateLimiter(opts.rateLimitPerMin, now);
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sessions = new Map<string, Session>();
  /** Sessions being initialised: they hold a slot so concurrent initialises cannot overshoot the cap. */
  let opening = 0;
  // Rounded down, so the shares of all callers fit in the total: each caller can always open its share.
  const perCaller =
    opts.maxSessionsPerCaller ?? Math.max(1, Math.floor(opts.maxSessions / Math.max(1, new Set(opts.tokens).size)));
  /** Per caller: open sessions plus those being initialised. */
  const held = new Map<string, number>();
  const hold = (owner: string, delta: number) => {
    const n = (held.get(owner) ?? 0) + delta;
    if (n > 0) held.set(owner, n);
    else held.delete(owner);
  };
  const log = opts.log;

  async function closeSession(s: Session, why: string): Promise<void> {
    if (!sessions.delete(s.id)) return;
    hold(s.owner, -1);
    log.info(`http session closed (${why})`, { session: s.id.slice(0, 8), owner: s.owner });
    await s.close().catch((err) => log.warn('error closing an http session', { error: String(err) }));
  }

  function sweep(): void {
    const t = now();
    for (const s of sessions.values()) {
      if (s.busy === 0 && t - s.lastSeen >= opts.sessionIdleMs) void closeSession(s, 'idle');
    }
  }

  async function openSession(owner: string, req: IncomingMessage, res: ServerResponse, body: unknown) {
    sweep();
    if ((held.get(owner) ?? 0) >= perCaller) {
      log.warn('http session refused: per-caller session limit reached', { owner, max: perCaller });
      sendError(res, 503, `Too many open sessions for this token (limit ${perCaller}); close one or retry later`, {
        'retry-after': '60',
      });
      return;
    }
    if (sessions.size + opening >= opts.maxSessions) {
      log.warn('http session refused: session limit reached', { max: opts.maxSessions });
      sendError(res, 503, `Too many open sessions (limit ${opts.maxSessions}); close one or retry later`, {
        'retry-after': '60',
      });
      return;
    }
    opening++;
    // The caller's slot is held from here; it is given back below if initialisation fails, else on close.
    hold(owner, 1);
    const built = opts.newSession(owner);
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBody,
      onsessioninitialized: (id) => {
        session = {
          id,
          owner,
          transport,
          lastSeen: now(),
          busy: 1,
          close: async () => {
            await built.close();
            await transport.close();
          },
        };
        sessions.set(id, session);
        log.info('http session opened', { session: id.slice(0, 8), owner });
      },
      // DELETE from the client.
      onsessionclosed: (id) => {
        const s = sessions.get(id);
        if (s) void closeSession(s, 'deleted by the client');
      },
    });
    transport.onclose = () => {
      if (session) void closeSession(session, 'transport closed');
    };
    try {
      await built.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      opening--;
      if (session) {
        session.busy--;
        session.lastSeen = now();
      } else {
        // Initialisation failed (bad initialize params): nothing to keep.
        hold(owner, -1);
        await built.close().catch(() => {});
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (path !== MCP_PATH) return sendError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    if (!hostAllowed(req.headers.host, hosts)) {
      return sendError(res, 403, 'Forbidden: Host not allowed (set GENPLAT_HTTP_ALLOWED_HOSTS)');
    }
    if (!originAllowed(req.headers.origin, req.headers.host, opts.allowedOrigins)) {
      return sendError(res, 403, 'Forbidden: Origin not allowed (set GENPLAT_HTTP_ALLOWED_ORIGINS)');
    }
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
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return sendError(res, 405, 'Method not allowed', { allow: 'GET, POST, DELETE' });
    }

    let body: unknown;
    if (req.method === 'POST') {
      try {
        const raw = await readBody(req, maxBody);
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        if (err instanceof BodyTooLargeError) {
          return sendError(res, 413, `Request body larger than ${maxBody} bytes`, { connection: 'close' });
        }
        if (!res.headersSent) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
        }
        return;
      }
    }

    sweep();
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined) {
      if (req.method === 'POST' && isInitializeRequest(body)) return openSession(owner, req, res, body);
      return sendError(res, 400, 'Bad Request: no valid session id; start with an initialize request');
    }
    const s = sessions.get(sessionId);
    // Another caller's session is answered exactly like an unknown one.
    if (!s || s.owner !== owner) return sendError(res, 404, 'Session not found');
    s.lastSeen = now();
    const counts = req.method !== 'GET';
    if (counts) s.busy++;
    try {
      await s.transport.handleRequest(req, res, body);
    } finally {
      if (counts) s.busy--;
      s.lastSeen = now();
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
  // Idle sessions also close without traffic; unref'd so it never keeps the process alive.
  const timer = setInterval(sweep, Math.min(60_000, Math.max(1000, opts.sessionIdleMs / 2)));
  timer.unref();

  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(timer);
      await Promise.allSettled([...sessions.values()].map((s) => closeSession(s, 'server stopping')));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
