/**
 * The part of a server that answers `initialize`: the McpServer with its identity, instructions, capabilities
 * and the consent-state check, plus MCP log forwarding. No tool, resource or prompt is registered here, so the
 * bundled bin can answer a host's first requests before those modules are loaded (src/server-deferred.ts);
 * src/server.ts adds them at once for every other server.
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { LogLevel } from './log.js';
import { packageVersion } from './package-version.js';
import { TOKEN_TTL_MS } from './paid/token.js';
import { isModern } from './protocol/era.js';
import { type ConsentStateCodec, consentStateCodec } from './protocol/request-state.js';
import { TASKS_CAPABILITY } from './protocol/tasks-capability.js';
import type { ServerDeps } from './server-deps.js';

/** Six lines: the flow every host's model should follow (some hosts show nothing else about the server). */
export const INSTRUCTIONS = [
  'Generation Platform: create_*, run_model, animate_gesture and upscale_video start paid jobs; list_* and job tools are free.',
  '1. Choose inputs with the list tools (list_avatars, list_voices, list_templates, list_models). A media URL field also takes a local file path (stdio) or upload:<id> (HTTP: from request_upload).',
  '2. Call the create tool: it either asks the user to confirm, or returns status confirmation_required with the cost and a confirmation_token.',
  '3. Show the user the cost; only if they agree, call the same tool again with the same arguments plus confirmation_token.',
  '4. The create call returns a handle at once: call wait_for_jobs with the handles (each call waits at most ~50 s) and call again with the returned handles until completed or failed.',
  'Never resubmit a job whose status is unknown unless the user says so (allow_duplicate: true); list_jobs shows jobs and today’s spend.',
].join('\n');

const MCP_LEVEL: Record<LogLevel, 'debug' | 'info' | 'warning' | 'error'> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};

export interface ServerShell {
  server: McpServer;
  consentState: ConsentStateCodec;
  /** Stops forwarding log lines to the client. */
  removeSink(): void;
}

/** The McpServer as `initialize` shows it. Nothing is sent to the platform here. */
export function createServerShell(deps: ServerDeps): ServerShell {
  const consentState =
    deps.consentState ?? consentStateCodec(() => deps.jobs.consentKey(), deps.tokenTtlMs ?? TOKEN_TTL_MS);
  const server = new McpServer(
    { name: 'genplat-mcp', title: 'Generation Platform', version: packageVersion() },
    {
      instructions: INSTRUCTIONS,
      capabilities: {
        logging: {},
        resources: { subscribe: !deps.perRequest || deps.listenStreams === true, listChanged: true },
        tools: { listChanged: true },
        prompts: { listChanged: true },
        // MCP tasks for long paid jobs (src/protocol/tasks.ts): optional, offered only to clients that declare it.
        extensions: { ...TASKS_CAPABILITY },
      },
      debouncedNotificationMethods: ['notifications/tools/list_changed', 'notifications/resources/list_changed'],
      // The confirmation form's state (2026-07-28): refused by the SDK before any handler if forged or expired.
      requestState: { verify: (state, ctx) => consentState.verify(state, ctx) },
      // A 2025 client gets a pushed form from our own path (with its token fallback), never the SDK's shim.
      inputRequired: { legacyShim: false },
    },
  );

  // Logs also go to MCP logging on 2025-era connections (a debugging aid; stderr stays the main log). A
  // 2026-07-28 client has no session to send them on (logging is per request there and deprecated).
  const removeSink = deps.perRequest
    ? () => {}
    : deps.log.addSink((level, line) => {
        // Only once the client has initialized: a notification before that is a protocol error for strict clients.
        if (!server.isConnected() || !server.server.getClientVersion() || isModern(server)) return;
        server.sendLoggingMessage({ level: MCP_LEVEL[level], logger: 'genplat-mcp', data: line }).catch(() => {});
      });
  return { server, consentState, removeSink };
}
