/**
 * The server factory: one McpServer with every tool, resource and prompt registered, ready to connect to a
 * transport. No business logic here (style.md 2.1); the same factory serves stdio, HTTP and the tests.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { ALL_RESOURCES, type ResourceSpec, registerResources } from '../resources/index.js';
import { ALL_TOOLS } from '../tools/index.js';
import { CONFIRM_TOOL, registerConfirmTool } from './apps/confirm-tool.js';
import { registerAppResources } from './apps/register.js';
import { type Catalog, createCatalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import type { ToolSpec } from './define-tool.js';
import { createPoller, type Poller } from './jobs/poller.js';
import type { JobStore } from './jobs/store.js';
import type { PaidStep } from './kill-steps.js';
import type { Logger, LogLevel } from './log.js';
import { packageVersion } from './package-version.js';
import type { CallbackUrlMaker } from './paid/callback.js';
import { TOKEN_TTL_MS } from './paid/token.js';
import { registerPrompts } from './prompts.js';
import { serveToolsListPerClient } from './protocol/app-only.js';
import { isModern } from './protocol/era.js';
import { type ConsentStateCodec, consentStateCodec } from './protocol/request-state.js';
import { registerTaskHandlers, TASKS_CAPABILITY } from './protocol/tasks.js';
import { registerTools, visibleSpecs } from './tool-runtime.js';
import { prebuiltToolsLists } from './tools-list-prebuilt.js';

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
  /**
   * With `perRequest`: this instance answers a 2026-07-28 client, whose per-resource updates come on a
   * `subscriptions/listen` stream fed by the HTTP handler's event bus. The SDK honours a listen filter's
   * `resourceSubscriptions` only when the server advertises `resources.subscribe`, so it is advertised then.
   */
  listenStreams?: boolean;
}

/** Six lines: the flow every host's model should follow (some hosts show nothing else about the server). */
export const INSTRUCTIONS = [
  'Generation Platform: create_*, run_model, animate_gesture and upscale_video start paid jobs; list_* and job tools are free.',
  '1. Choose inputs with the list tools (list_avatars, list_voices, list_templates, list_models).',
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

/** Builds the server. Nothing is sent to the platform here. */
export function buildServer(deps: ServerDeps): { server: McpServer; close(): Promise<void> } {
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
  const catalog = deps.catalog ?? createCatalog(deps.client);
  const ownPoller = deps.poller === undefined;
  const poller = deps.poller ?? createPoller({ client: deps.client, jobs: deps.jobs, log: deps.log });
  const runtime = {
    config: deps.config,
    client: deps.client,
    jobs: deps.jobs,
    catalog,
    poller,
    log: deps.log,
    owner: deps.owner,
  };
  const runtimeDeps = {
    ...runtime,
    consentState,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.tokenTtlMs ? { tokenTtlMs: deps.tokenTtlMs } : {}),
    ...(deps.onPaidStep ? { onPaidStep: deps.onPaidStep } : {}),
    ...(deps.callbackUrl ? { callbackUrl: deps.callbackUrl } : {}),
  };
  const specs = deps.tools ?? ALL_TOOLS;
  const registered = registerTools(server, specs, runtimeDeps);
  const confirm = registerConfirmTool(server, specs, runtimeDeps);
  // tools/list per client: App-only tools only to clients that declared MCP Apps (src/protocol/app-only.ts). The
  // bundled bin carries both answers as built from these very registrations (src/tools-list-prebuilt.ts).
  const names = visibleSpecs(specs, deps.config).map((s) => s.name);
  const prebuilt = deps.tools === undefined ? prebuiltToolsLists(names, confirm ? CONFIRM_TOOL : undefined) : undefined;
  // No tool registered (a test's empty tool list, say): the SDK installed no tools/list to wrap.
  if (registered.length > 0 || confirm) serveToolsListPerClient(server, prebuilt);
  registerResources(server, deps.resources ?? ALL_RESOURCES, runtime, { subscriptions: !deps.perRequest });
  registerAppResources(server, deps.config);
  registerPrompts(server, runtime);
  registerTaskHandlers(server, { ...runtime, ...(deps.now ? { now: deps.now } : {}) });

  // Logs also go to MCP logging on 2025-era connections (a debugging aid; stderr stays the main log). A
  // 2026-07-28 client has no session to send them on (logging is per request there and deprecated).
  const removeSink = deps.perRequest
    ? () => {}
    : deps.log.addSink((level, line) => {
        // Only once the client has initialized: a notification before that is a protocol error for strict clients.
        if (!server.isConnected() || !server.server.getClientVersion() || isModern(server)) return;
        server.sendLoggingMessage({ level: MCP_LEVEL[level], logger: 'genplat-mcp', data: line }).catch(() => {});
      });

  return {
    server,
    async close() {
      removeSink();
      if (ownPoller) poller.close();
      await server.close();
    },
  };
}
