/**
 * Which protocol era a request speaks, and what its client declared. SDK v2 serves 2025-era clients
 * (`initialize`, a session's capabilities) and 2026-07-28 clients (`server/discover`, capabilities on every
 * request's `_meta` envelope) from the same factory; on a 2026 request the SDK backfills the instance's
 * client capabilities and version from the envelope, so these accessors are right in both eras.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** The first protocol revision of the "modern" era (per-request envelope, `input_required`, no `initialize`). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Whether this instance serves a 2026-07-28 (or later) client. Revisions are ISO dates: they sort as strings. */
export function isModern(server: McpServer): boolean {
  return (server.server.getNegotiatedProtocolVersion() ?? '') >= MODERN_PROTOCOL_VERSION;
}

/** A key of this request's 2026-07-28 `_meta` envelope (the SDK lifts it out of `_meta`), if it has one. */
function fromEnvelope(ctx: ServerContext | undefined, key: string): unknown {
  return (ctx?.mcpReq.envelope as Record<string, unknown> | undefined)?.[key];
}

/**
 * The capabilities the client declared (at initialize on 2025 clients, on this request's envelope on 2026).
 * The envelope comes first: SDK 2.4 backfills the instance from it only in `createMcpHandler` (HTTP); under
 * `serveStdio` `getClientCapabilities()` stays undefined, so a 2026 stdio client looked capability-less
 * and never got the `input_required` form (found by scripts/ci/modern-smoke.mjs).
 */
export function clientCapabilities(server: McpServer, ctx?: ServerContext): ClientCapabilities | undefined {
  // Only a request served on the 2026 era declares capabilities per request (as the SDK itself reads them): on a
  // 2025 session a `_meta` envelope is just data the client chose to send, and trusting it would let a client
  // without MCP Apps claim the extension and record a `click` (issue 18 review).
  if (isModern(server)) {
    const declared = fromEnvelope(ctx, CLIENT_CAPABILITIES_META_KEY);
    if (declared && typeof declared === 'object') return declared as ClientCapabilities;
  }
  return server.server.getClientCapabilities();
}

/** The client's name, lower-cased ('' when it gave none); from the envelope first, as above. */
export function clientName(server: McpServer, ctx?: ServerContext): string {
  const info = fromEnvelope(ctx, CLIENT_INFO_META_KEY) as { name?: unknown } | undefined;
  const name = typeof info?.name === 'string' ? info.name : server.server.getClientVersion()?.name;
  return name?.toLowerCase() ?? '';
}

/**
 * A 2025-era request over stateless HTTP: every request is served by a fresh instance, so a request pushed to
 * the client (an `elicitation/create`) has nobody to receive its answer, which arrives as a new HTTP request,
 * possibly on another instance of the fleet. Such calls confirm with a token instead.
 */
export function isStatelessLegacyHttp(server: McpServer, ctx: ServerContext): boolean {
  return !isModern(server) && ctx.http !== undefined && ctx.sessionId === undefined;
}
