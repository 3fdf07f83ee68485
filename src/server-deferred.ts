/**
 * The bundled bin's stdio server, built in two steps (issue 20, cold start). A host's first requests
 * (initialize, tools/list) need only the server's identity and the tools/list the build computed
 * (src/tools-list-prebuilt.ts); the tools' modules, their zod schemas, the paid path, resources and prompts are
 * ~half of the bundle's start-up work. So they are loaded and registered when the first request that needs them
 * arrives (src/protocol/hold-until-installed.ts), and every answer is the one the whole server gives.
 *
 * Used only where the prebuilt list covers the configuration for both kinds of client; elsewhere (unbundled,
 * other toolsets) the caller builds the whole server at once (src/server.ts). Nothing here reads settings or
 * opens anything: a bad configuration still fails at launch, before this runs.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Config } from './config.js';
import { serveToolsListPerClient } from './protocol/app-only.js';
import { holdUntilInstalled } from './protocol/hold-until-installed.js';
import type { ServerDeps } from './server-deps.js';
import type { InstalledHandlers } from './server-handlers.js';
import { createServerShell } from './server-shell.js';
import { prebuiltListsFor } from './tools-list-prebuilt.js';

const LIST_CHANGED = ['sendToolListChanged', 'sendResourceListChanged', 'sendPromptListChanged'] as const;

/** Whether the build's tools/list covers `config` for every kind of client (false unbundled). */
export function canDeferHandlers(config: Config): boolean {
  return prebuiltListsFor(config) !== undefined;
}

/**
 * The server for `deps` (default tools and resources) with its handlers installed on demand. `onFailure` gets
 * a failed load of the handlers' modules.
 * @throws Error when `canDeferHandlers(deps.config)` is false.
 */
export function buildDeferredServer(
  deps: ServerDeps,
  onFailure: (err: unknown) => void,
): { server: McpServer; close(): Promise<void> } {
  const lists = prebuiltListsFor(deps.config);
  if (!lists || deps.tools !== undefined || deps.resources !== undefined) {
    throw new Error('deferred start: no prebuilt tools/list for this configuration');
  }
  const { server, consentState, removeSink } = createServerShell(deps);
  // The SDK's own tools/list handler (installed at construction) is never asked: both lists are prebuilt.
  serveToolsListPerClient(server, lists);
  // Registering a completable prompt argument declares `completions`, which the SDK refuses once connected:
  // declared now, as the whole server declares it while it builds.
  const completion = (server as unknown as { setCompletionRequestHandler?: () => void }).setCompletionRequestHandler;
  if (typeof completion !== 'function')
    throw new Error('deferred start: setCompletionRequestHandler not found (SDK changed?)');
  completion.call(server);
  if (LIST_CHANGED.some((name) => Object.hasOwn(server, name))) {
    throw new Error('deferred start: list-changed senders are not prototype methods (SDK changed?)');
  }

  let handlers: InstalledHandlers | undefined;
  let closed = false;
  const install = async () => {
    const { installHandlers } = await import('./server-handlers.js');
    if (closed) return;
    // Registering on a connected server notifies list changes; the lists the client saw already held all of this.
    const quiet = server as unknown as Record<(typeof LIST_CHANGED)[number], unknown>;
    for (const name of LIST_CHANGED) quiet[name] = () => {};
    try {
      handlers = installHandlers(server, deps, consentState);
    } finally {
      // The instance's own no-ops go: the SDK's methods (on its prototype) notify again from here on.
      for (const name of LIST_CHANGED) delete quiet[name];
    }
  };
  holdUntilInstalled(server, install, onFailure);
  return {
    server,
    async close() {
      closed = true;
      removeSink();
      handlers?.close();
      await server.close();
    },
  };
}
