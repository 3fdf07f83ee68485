/**
 * The server factory: one McpServer with every tool, resource and prompt registered, ready to connect to a
 * transport. No business logic here (style.md 2.1); the same factory serves stdio, HTTP and the tests.
 */

import type { McpServer } from '@modelcontextprotocol/server';
import { CONFIRM_TOOL } from './apps/confirm-name.js';
import { serveToolsListPerClient } from './protocol/app-only.js';
import type { ServerDeps } from './server-deps.js';
import { installHandlers } from './server-handlers.js';
import { createServerShell } from './server-shell.js';
import { prebuiltToolsLists } from './tools-list-prebuilt.js';

export type { ServerDeps } from './server-deps.js';
export { INSTRUCTIONS } from './server-shell.js';

/** Builds the server with everything registered. Nothing is sent to the platform here. */
export function buildServer(deps: ServerDeps): { server: McpServer; close(): Promise<void> } {
  const { server, consentState, removeSink } = createServerShell(deps);
  const handlers = installHandlers(server, deps, consentState);
  // tools/list per client: App-only tools only to clients that declared MCP Apps (src/protocol/app-only.ts). The
  // bundled bin carries both answers as built from these very registrations (src/tools-list-prebuilt.ts).
  const confirm = handlers.confirm ? CONFIRM_TOOL : undefined;
  const prebuilt = deps.tools === undefined ? prebuiltToolsLists(handlers.toolNames, confirm) : undefined;
  // No tool registered (a test's empty tool list, say): the SDK installed no tools/list to wrap.
  if (handlers.toolNames.length > 0 || confirm) serveToolsListPerClient(server, prebuilt);
  return {
    server,
    async close() {
      removeSink();
      handlers.close();
      await server.close();
    },
  };
}
