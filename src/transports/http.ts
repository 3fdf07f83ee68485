/**
 * Streamable HTTP (chat-ops bots, remote hosts, a fleet behind a load balancer): the SDK's `createMcpHandler`,
 * stateless for both protocol eras. Every request is answered by a fresh MCP server built for its caller, and
 * everything that must outlive a request (jobs, consent tokens and their nonces, the consent key, reported
 * charges) is in the store, so any instance on the same PostgreSQL answers any request: no session affinity.
 *
 * In front of the handler, in this order: path → Host (DNS rebinding; the SDK's guard) → Origin (the SDK's
 * guard) → failed-authentication throttle per address (src/auth/auth-throttle.ts) → who the person is (issue 28):
 * a Slack-signed request by Slack's rules alone (src/auth/slack-auth.ts), else a bearer token, static or OAuth
 * (src/auth/gate.ts), and the person a delegating bot names (src/auth/delegation.ts); both read the body once
 * (./raw-body.ts) → per-caller (per-person) rate limit → in-flight caps. The body
 * limit is the SDK adapter's. Paths: `/mcp` (static tokens and, when configured, OAuth with its metadata at
 * `/.well-known/oauth-protected-resource…`) and `/static/mcp` (static tokens only, no OAuth advertised: for hosts
 * that drop a configured header once a server advertises OAuth).
 * Rate limits and in-flight caps are per instance (the SDK has no middleware for them on plain node:http and
 * they exist to stop runaway loops, not to meter).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  type McpHttpHandler,
  type McpServer,
  type OAuthTokenVerifier,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { authThrottle } from '../auth/auth-throttle.js';
import { applyDelegation, type DelegationConfig } from '../auth/delegation.js';
import { createGate } from '../auth/gate.js';
import { type CallerExtra, callerNames, ownerOf } from '../auth/identity.js';
import type { OAuthConfig } from '../auth/oauth-config.js';
import { metadataRoute } from '../auth/resource-metadata.js';
import { type Access, accessOf } from '../auth/scopes.js';
import {
  checkSlackRequest,
  hasSlackHeaders,
  type IdentityVerdict,
  refuseSlackHeaders,
  type SlackAuthConfig,
} from '../auth/slack-auth.js';
import type { TokenScopes } from '../auth/token-scopes.js';
import { ConfigurationError } from '../errors.js';
import type { Logger } from '../log.js';
import { bearerValue } from './http-auth.js';
import { allowedHostNames, allowedOriginHostNames } from './http-guards.js';
import { createRateLimiter, DEFAULT_MAX_BODY_BYTES, MAX_UNVERIFIED_READS } from './http-limits.js';
import { requestOwner } from './listen-owner.js';
import { BodyTooLargeError, parseJsonBody, readRawBody, replayed } from './raw-body.js';

/** How long an idle keep-alive connection stays open (see the server's creation). */
const KEEP_ALIVE_MS = 65_000;

export const MCP_PATH = '/mcp';
/** Static tokens only: no OAuth challenge or metadata here (issue 14 item 6). */
export const STATIC_MCP_PATH = '/static/mcp';
/** In-flight shares set aside for OAuth callers, whose number is unknown until they sign in. */
const OAUTH_CALLER_SHARES = 10;

/** Extra routes served next to `/mcp` (the webhook receiver): true when the route answered the request. */
export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, path: string) => boolean | Promise<boolean>;

export interface HttpServerOptions {
  host: string;
  /** 0 = a free port (tests). */
  port: number;
  /** Static bearer tokens (may be empty when OAuth is on). */
  tokens: readonly string[];
  /** Named static tokens: name → token (owner `token:<name>`). */
  tokenNames?: Readonly<Record<string, string>> | undefined;
  /** GENPLAT_HTTP_TOKEN_SCOPES: a named token's level (src/auth/token-scopes.ts); absent = spend. */
  tokenScopes?: TokenScopes | undefined;
  /** OAuth resource server: the settings and the token verifier (src/auth/token-verifier.ts). */
  oauth?: { config: OAuthConfig; verifier: OAuthTokenVerifier } | undefined;
  /** Slack identity auth (src/auth/slack-auth.ts): on when set. */
  slack?: SlackAuthConfig | undefined;
  /** Bots that may act for people (src/auth/delegation.ts). */
  delegation?: DelegationConfig | undefined;
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
  /** Requests in flight in total on this instance. */
  maxInFlight: number;
  /** Requests in flight per caller; default an even share of `maxInFlight` among `tokens` (at least 1). */
  maxInFlightPerCaller?: number | undefined;
  rateLimitPerMin: number;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Builds the MCP server that answers one request of this caller, in the request's protocol era. `names`: what
   * the request or its token said the person is called (OAuth claims, a delegating bot's `name`).
   */
  buildServer(
    owner: string,
    era: 'legacy' | 'modern',
    names: { name?: string; email?: string },
    access: Access,
  ): McpServer;
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
  /** e.g. http://127.0.0.1:8787/static/mcp (static tokens only) */
  staticUrl: string;
  port: number;
  /** The SDK handler: `notify.resourceUpdated(uri)` publishes to subscribers through the bus. */
  handler: McpHttpHandler;
  /** Requests being answered right now (all callers). */
  inFlight(): number;
  /** Stops accepting, aborts what is in flight, closes the listener. */
  close(): Promise<void>;
}

const NO_DELEGATION: DelegationConfig = { owners: [], clientIds: [] };

/** The body, or undefined once a 413 was answered (the same answer the SDK adapter gives). */
async function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | undefined> {
  try {
    return await readRawBody(req, limit);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    sendError(res, 413, err.message, { connection: 'close' });
    return undefined;
  }
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  // JSON-RPC shaped, as the SDK answers, so clients show the message.
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Starts listening.
 * @throws Error when neither a static token nor OAuth is configured, or the port cannot be bound.
 */
export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  // HTTP mode must never run without authentication.
  if (opts.tokens.length === 0 && !opts.oauth && !opts.slack) {
    throw new Error('at least one HTTP bearer token, OAuth or Slack signing secret is required');
  }
  const now = opts.now ?? Date.now;
  const gate = createGate({
    tokens: opts.tokens,
    tokenNames: opts.tokenNames,
    tokenScopes: opts.tokenScopes,
    oauth: opts.oauth,
    now,
    log: opts.log,
  });
  const routes = [...(opts.oauth ? [metadataRoute(opts.oauth.config, MCP_PATH)] : []), ...(opts.routes ?? [])];
  const limiter = createRateLimiter(opts.rateLimitPerMin, now);
  const throttle = authThrottle(now);
  const log = opts.log;
  const validateHost = hostHeaderValidation([...allowedHostNames(opts.host, opts.allowedHosts)]);
  const validateOrigin = originValidation(allowedOriginHostNames(opts.host, opts.allowedHosts, opts.allowedOrigins));

  const handler = createMcpHandler(
    ({ authInfo, era }) => {
      const owner = ownerOf(authInfo);
      // Unreachable: every request reaching the handler was authenticated below.
      if (!owner) throw new Error('unauthenticated request reached the MCP handler');
      // What the credential may do travels with the server it gets: a quote-only caller's paid call never admits.
      // A request granting no level at all cannot get here (the gate refuses it); `read` is the safe reading.
      return opts.buildServer(owner, era, callerNames(authInfo), accessOf(authInfo?.scopes ?? []) ?? 'read');
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
  // With OAuth the callers are not known in advance: shares for 10 of them at once (a team's busy hour) on top.
  // Slack's people share one share (they come through one Slack app, like a bot's people through its token).
  const callers = new Set(opts.tokens).size + (opts.oauth ? OAUTH_CALLER_SHARES : 0) + (opts.slack ? 1 : 0);
  const perCaller = opts.maxInFlightPerCaller ?? Math.max(1, Math.floor(opts.maxInFlight / Math.max(1, callers)));
  const busy = new Map<string, number>();
  let total = 0;
  let unverifiedReads = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const entry = path === MCP_PATH ? 'mcp' : path === STATIC_MCP_PATH && opts.tokens.length > 0 ? 'static' : undefined;
    if (!entry) {
      for (const route of routes) if (await route(req, res, path)) return;
      return sendError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    }
    // The SDK's guards answer 403 themselves.
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    // Before any verification: an address that keeps presenting bad tokens costs the identity provider nothing
    // more (src/auth/auth-throttle.ts); a token verified earlier still passes.
    const addr = req.socket.remoteAddress ?? '?';
    const authorization = req.headers.authorization;
    const throttled = throttle.retryAfter(addr);
    if (throttled > 0 && !gate.knownGood(authorization, entry)) {
      return sendError(res, 429, 'Too many failed authentications from this address', {
        'retry-after': String(throttled),
      });
    }
    const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // A request with Slack's headers is judged by Slack's rules only (src/auth/slack-auth.ts); nothing else is
    // asked, so a refused one costs the identity provider and the platform nothing.
    const slack = opts.slack && hasSlackHeaders(req.headers) ? opts.slack : undefined;
    let raw: Buffer;
    let identity: IdentityVerdict;
    if (slack) {
      const early = refuseSlackHeaders(req.headers, now());
      if (early) {
        throttle.failed(addr);
        return sendError(res, early.status, early.message);
      }
      // Bodies read before their signature is checked, at most this many at once (each up to maxBody).
      if (unverifiedReads >= MAX_UNVERIFIED_READS)
        return sendError(res, 503, 'Too many unverified requests being read; retry shortly', { 'retry-after': '5' });
      unverifiedReads++;
      const read = await readBody(req, res, maxBody).finally(() => {
        unverifiedReads--;
      });
      if (!read) return;
      raw = read;
      identity = checkSlackRequest({
        config: slack,
        headers: req.headers,
        raw,
        body: parseJsonBody(raw),
        nowMs: now(),
      });
      // Only a bad signature counts toward the address's throttle: Slack's people share Slack's few addresses, and
      // a signed request that names nobody says nothing about guessing.
      if (!identity.ok && identity.badSignature) throttle.failed(addr);
    } else {
      const verdict = await gate.check(authorization, entry);
      if (!verdict.ok) {
        // A refused token counts; no token (a host probing for the challenge) and our own outage (5xx) do not.
        if (verdict.status === 401 && bearerValue(authorization) !== undefined) throttle.failed(addr);
        if (res.headersSent) return;
        res.writeHead(verdict.status, verdict.headers);
        res.end(verdict.body);
        return;
      }
      const read = await readBody(req, res, maxBody);
      if (!read) return;
      raw = read;
      // The person a delegating bot names in this request's body, if any (src/auth/delegation.ts).
      identity = applyDelegation(opts.delegation ?? NO_DELEGATION, verdict.authInfo, parseJsonBody(raw));
    }
    if (!identity.ok) return sendError(res, identity.status, identity.message);
    const owner = identity.owner;
    // Limits are per credential, as documented ("per token"): a delegating bot's people draw on the bot's share, or
    // a bot naming more people would take every slot (review 4). Slack's people together hold one in-flight share;
    // their per-minute limit stays per person (no token to share, and one person cannot starve the others).
    const extra = identity.authInfo.extra as CallerExtra | undefined;
    const share = extra?.actingBot ?? (extra?.via === 'slack' ? 'slack' : owner);
    const wait = limiter.take(`owner:${extra?.actingBot ?? owner}`);
    if (wait > 0) {
      return sendError(res, 429, `Too many requests: limit ${opts.rateLimitPerMin} per minute per token`, {
        'retry-after': String(wait),
      });
    }
    const mine = busy.get(share) ?? 0;
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
    busy.set(share, mine + 1);
    total++;
    try {
      // The owner travels with the request so listen streams hear only their caller's jobs (./listen-owner.ts).
      // The SDK adapter reads the bytes already read here (./raw-body.ts).
      await requestOwner.run(owner, () => serveMcp(replayed(req, raw, identity.authInfo), res));
    } finally {
      total--;
      const left = (busy.get(share) ?? 1) - 1;
      if (left > 0) busy.set(share, left);
      else busy.delete(share);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      log.error('http request failed', { error: String(err) });
      sendError(res, 500, 'Internal server error');
    });
  });
  // An idle keep-alive connection is closed by the client first: Node's 5 s default is just above undici's 4 s
  // (the SDK clients' fetch), so on a loaded machine a late timer let the server close a socket the client was
  // reusing at that instant ("fetch failed", ECONNRESET, seen under npm test's load). 65 s is also above the
  // usual load balancer idle timeout (60 s), the common setting behind one; headers must be allowed longer still.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      // A taken or forbidden port is a setting to change, not a crash: the bin prints it as one line, exit 2.
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL') {
        const why = err.code === 'EADDRINUSE' ? 'is in use by another process' : `cannot be used (${err.code})`;
        reject(
          new ConfigurationError([
            `${opts.host}:${opts.port} ${why}: stop what holds it or choose another with --port / GENPLAT_HTTP_PORT (--host / GENPLAT_HTTP_HOST)`,
          ]),
        );
      } else reject(err);
    };
    server.once('error', failed);
    server.listen(opts.port, opts.host, () => {
      server.off('error', failed);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    staticUrl: `http://${shownHost}:${port}${STATIC_MCP_PATH}`,
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
