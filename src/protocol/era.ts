/**
 * Which protocol era a request speaks, and what its client declared. SDK v2 serves 2025-era clients
 * (`initialize`, a session's capabilities) and 2026-07-28 clients (`server/discover`, capabilities on every
 * request's `_meta` envelope) from the same factory; on a 2026 request the SDK backfills the instance's
 * client capabilities and version from the envelope, so these accessors are right in both eras.
 */
import type { ClientCapabilities, McpServer, ServerContext } from '@modelcontextprotocol/server';

/** The first protocol revision of the "modern" era (per-request envelope, `input_required`, no `initialize`). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Whether this instance serves a 2026-07-28 (or later) client. Revisions are ISO dates: they sort as strings. */
export function isModern(server: McpServer): boolean {
  return (server.server.getNegotiatedProtocolVersion() ?? '') >= MODERN_PROTOCOL_VERSION;
}

/** The capabilities the client declared (at initialize on 2025 clients, on this request's envelope on 2026). */
export function clientCapabilities(server: McpServer): ClientCapabilities | undefined {
  return server.server.getClientCapabilities();
}

/** The client's name, lower-cased ('' when it gave none). */
export function clientName(server: McpServer): string {
  return server.server.getClientVersion()?.name?.toLowerCase() ?? '';
}

/**
 * A 2025-era request over stateless HTTP: every request is served by a fresh instance, so a request pushed to
 * the client (an `elicitation/create`) has nobody to receive its answer, which arrives as a new HTTP request,
 * possibly on another instance of the fleet. Such calls confirm with a token instead.
 */
export function isStatelessLegacyHttp(server: McpServer, ctx: ServerContext): boolean {
  return !isModern(server) && ctx.http !== undefined && ctx.sessionId === undefined;
}
