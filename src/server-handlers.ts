/**
 * Everything a server does beyond `initialize`: the tools (with the App's Confirm button), resources, the Apps'
 * Views, prompts and MCP task handlers, over one catalog and one poller. src/server.ts installs them while it
 * builds a server; the bundled bin's stdio server installs them when the first request that needs them
 * arrives (src/server-deferred.ts), so their modules and zod schemas are not evaluated before the first tools/list.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { ALL_RESOURCES, registerResources } from '../resources/index.js';
import { ALL_TOOLS } from '../tools/index.js';
import { registerConfirmTool } from './apps/confirm-tool.js';
import { registerAppResources } from './apps/register.js';
import { issueViewNonce } from './apps/view-nonce.js';
import { createCatalog } from './catalog.js';
import { finalJobCleanup } from './files/files-deps.js';
import { createFollower } from './jobs/follower.js';
import { createPoller } from './jobs/poller.js';
import { registerPrompts } from './prompts.js';
import type { ConsentStateCodec } from './protocol/request-state.js';
import { feedStdioListen } from './protocol/stdio-listen.js';
import { registerTaskHandlers } from './protocol/tasks.js';
import type { ServerDeps } from './server-deps.js';
import { registerTools } from './tool-runtime.js';
import { transportOf, visibleSpecs } from './tool-visibility.js';

export interface InstalledHandlers {
  /** Names of the spec tools registered, in registration order. */
  toolNames: string[];
  /** Whether the App's Confirm tool was registered. */
  confirm: boolean;
  /** Closes what the handlers own (the poller, unless the caller passed one). */
  close(): void;
}

/**
 * Registers every tool, resource, prompt and task handler on `server`. The tools/list answer per client is the
 * caller's (src/protocol/app-only.ts wraps the SDK's handler once everything is registered).
 */
export function installHandlers(
  server: McpServer,
  deps: ServerDeps,
  consentState: ConsentStateCodec,
): InstalledHandlers {
  const catalog = deps.catalog ?? createCatalog(deps.client);
  const ownPoller = deps.poller === undefined;
  const poller =
    deps.poller ??
    createPoller({
      client: deps.client,
      jobs: deps.jobs,
      log: deps.log,
      onFinal: finalJobCleanup(deps.config, deps.log),
    });
  // Issue 29 item 2: whoever listens (a 2025 subscription, a task) has their open jobs followed at the poller's pace.
  const ownFollower = deps.follower === undefined;
  const follower = deps.follower ?? createFollower({ store: deps.jobs, poller, log: deps.log });
  const owner = deps.owner;
  const follow = () => (owner !== undefined ? follower.follow(owner) : follower.followAll());
  const runtime = {
    config: deps.config,
    client: deps.client,
    jobs: deps.jobs,
    catalog,
    poller,
    log: deps.log,
    owner: deps.owner,
    ...(deps.access ? { access: deps.access } : {}),
    ...(deps.person ? { person: deps.person } : {}),
  };
  const runtimeDeps = {
    ...runtime,
    consentState,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.tokenTtlMs ? { tokenTtlMs: deps.tokenTtlMs } : {}),
    ...(deps.onPaidStep ? { onPaidStep: deps.onPaidStep } : {}),
    ...(deps.callbackUrl ? { callbackUrl: deps.callbackUrl } : {}),
    ...(deps.files ? { files: deps.files } : {}),
    ...(deps.onApprovalDecided ? { onApprovalDecided: deps.onApprovalDecided } : {}),
    follow,
  };
  const specs = deps.tools ?? ALL_TOOLS;
  registerTools(server, specs, runtimeDeps);
  const confirm = registerConfirmTool(server, specs, runtimeDeps);
  registerResources(server, deps.resources ?? ALL_RESOURCES, runtime, { subscriptions: !deps.perRequest, follow });
  // The picker's upload panel: over HTTP only (stdio's files are local paths; its sandbox serves no upload page).
  const files = transportOf(deps) === 'http' ? deps.files : undefined;
  registerAppResources(server, deps.config, files ? () => files.uploadOrigin() : undefined, async () =>
    issueViewNonce(await deps.jobs.consentKey(), deps.owner, (deps.now ?? Date.now)()),
  );
  registerPrompts(server, runtime);
  registerTaskHandlers(server, { ...runtime, ...(deps.now ? { now: deps.now } : {}) });
  // A 2026-07-28 stdio connection: its listen streams are fed from here (HTTP's from the handler's event bus).
  const stopListen =
    !deps.perRequest && deps.listenStreams
      ? feedStdioListen(server, { poller, jobs: deps.jobs, log: deps.log, follow })
      : undefined;
  return {
    toolNames: visibleSpecs(specs, deps.config, transportOf(deps)).map((s) => s.name),
    confirm,
    close: () => {
      stopListen?.();
      if (ownFollower) follower.close();
      if (ownPoller) poller.close();
    },
  };
}
