/**
 * App-only tools (`_meta.ui.visibility` without "model": the job viewer's Confirm button) exist only for clients
 * that declared the MCP Apps extension (`io.modelcontextprotocol/ui` with the View's MIME type). `visibility` is
 * a hint that only hosts rendering Apps honour: Gemini CLI, opencode and agent frameworks hand such a tool to
 * their model like any other (mcp-notes §9), and a "click" made by a model would be a consent record that lies
 * (design.md §1 invariant 1). So other clients are not shown them, and calling one is refused (the tool's own
 * handler, src/apps/confirm-tool.ts).
 *
 * What a client declared is read per request (`clientCapabilities`: the 2026-07-28 envelope, else the 2025
 * connection's initialize), so one instance can serve both kinds, and a per-request instance (stateless HTTP)
 * decides from the request alone. A client that declared Slack's Block Kit gets the same list with its paid and job
 * tools marked (slack-block-kit.ts), prebuilt or live alike.
 */
import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { JSONRPCRequest, ListToolsResult, McpServer, ServerContext, Tool } from '@modelcontextprotocol/server';
import { clientCapabilities } from './era.js';
import { clientTakesBlockKit, withBlockKitMeta } from './slack-block-kit.js';

/** The client declared the MCP Apps extension with the View's MIME type, on this request (2026) or at initialize. */
export function clientShowsApps(server: McpServer, ctx: ServerContext | undefined): boolean {
  const caps = clientCapabilities(server, ctx) as Parameters<typeof getUiCapability>[0];
  return getUiCapability(caps)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** A tool only a View may call: its `_meta.ui.visibility` is given and leaves out "model". */
export function isAppOnly(tool: Pick<Tool, '_meta'>): boolean {
  const visibility = (tool._meta as { ui?: { visibility?: unknown } } | undefined)?.ui?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/** tools/list answers prepared ahead (the bundled bin's build-time list), per kind of client; undefined = live. */
export interface PreparedLists {
  forApps: Tool[] | undefined;
  forOthers: Tool[] | undefined;
}

type RawHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<unknown>;

/**
 * Replaces the SDK's tools/list handler (installed by the first `registerTool`) with one that answers per
 * client: the prepared list when there is one, else the SDK's live answer, without App-only tools for a client
 * that declared no Apps support. Call after every tool is registered.
 * @throws Error when the SDK's handler cannot be found (an SDK change: better no server than a wrong list).
 */
export function serveToolsListPerClient(server: McpServer, prepared?: PreparedLists): void {
  // The SDK has no public way to call the handler it installed; `_getRequestHandler` is its protected accessor
  // (SDK 2.4). Listing live keeps every tool definition exactly the SDK's (schema conversion and all).
  const live = (
    server.server as unknown as { _getRequestHandler(m: string): RawHandler | undefined }
  )._getRequestHandler?.('tools/list');
  if (!live) throw new Error('tools/list: the SDK handler to wrap was not found (SDK changed?)');
  server.server.setRequestHandler('tools/list', async (request, ctx) => {
    const apps = clientShowsApps(server, ctx);
    // A Slack Block Kit client: the same list, its paid and job tools marked (src/protocol/slack-block-kit.ts).
    const slack = clientTakesBlockKit(server, ctx) ? withBlockKitMeta : (tools: Tool[]) => tools;
    const ready = apps ? prepared?.forApps : prepared?.forOthers;
    if (ready) return { tools: slack(ready) };
    const listed = (await live(request as JSONRPCRequest, ctx)) as ListToolsResult;
    const tools = apps ? listed.tools : listed.tools.filter((t) => !isAppOnly(t));
    return { ...listed, tools: slack(tools) };
  });
}
