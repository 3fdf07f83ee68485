/**
 * The server factory: one McpServer with every tool, resource and prompt registered, ready to connect to a
 * transport. No business logic here (style.md 2.1); the same factory serves stdio, HTTP and the tests.
 */

import type { McpServer } from '@modelcontextprotocol/server';
import type { ResourceSpec } from '../resources/index.js';
import { CONFIRM_TOOL } from './apps/confirm-name.js';
import type { Catalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import type { ToolSpec } from './define-tool.js';
import type { FileServices } from './files/file-services.js';
import type { Poller } from './jobs/poller.js';
import type { JobStore } from './jobs/store.js';
import type { PaidStep } from './kill-steps.js';
import type { Logger } from './log.js';
import type { CallbackUrlMaker } from './paid/callback.js';
import { serveToolsListPerClient } from './protocol/app-only.js';
import type { ConsentStateCodec } from './protocol/request-state.js';
import { installHandlers } from './server-handlers.js';
import { createServerShell } from './server-shell.js';
import { prebuiltToolsLists } from './tools-list-prebuilt.js';

export { INSTRUCTIONS } from './server-shell.js';

export interface ServerDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  /** Defaults to a cached catalog over `client`. */
  catalog?: Catalog;
  /** Defaults to a poller over `client` and `jobs` (closed with the server). */
  poller?: Poller;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio. */
  owner?: string;
  /** Defaults to ALL_TOOLS. */
  tools?: ToolSpec[];
  /** Defaults to ALL_RESOURCES. */
  resources?: ResourceSpec[];
  /** Test hooks: clock and confirmation-token lifetime. */
  now?: () => number;
  tokenTtlMs?: number;
  /** Test hook: called at each named step of a paid call (src/kill-steps.ts), e.g. to cut the store there. */
  onPaidStep?: ((step: PaidStep) => void) | undefined;
  /** Defaults to a codec keyed from `jobs.consentKey()`; pass one to share it across per-request instances. */
  consentState?: ConsentStateCodec;
  /**
   * Stateless HTTP: this instance answers one request and is dropped. It then keeps nothing that outlives the
   * request: no `resources/subscribe` watches and no MCP log forwarding (there is no session to send on);
   * change notifications go through the HTTP handler's event bus instead (src/transports/http.ts).
   */
  perRequest?: boolean;
  /** HTTP mode with a public URL: our per-job callback URL for endpoints that accept `webhook_url`. */
  callbackUrl?: CallbackUrlMaker;
  /** HTTP mode: uploads, the self stager and upload links (src/files/file-services.ts). */
  files?: FileServices;
  /**
   * With `perRequest`: this instance answers a 2026-07-28 client, whose per-resource updates come on a
   * `subscriptions/listen` stream fed by the HTTP handler's event bus. The SDK honours a listen filter's
   * `resourceSubscriptions` only when the server advertises `resources.subscribe`, so it is advertised then.
   */
  listenStreams?: boolean;
}

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
