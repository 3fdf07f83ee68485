/**
 * Slack-native answers (issue 29 item 3, mcp-notes §10): a client that declares the extension
 * `io.slack/block-kit` with the MIME type `application/vnd.slack.blocks+json` (Slackbot) renders Block Kit from a
 * result's `_meta.slack.blocks`, for tools that declare `_meta.slack.supportsBlockKit: true` in tools/list.
 * Only such a client is told so and gets the blocks: every other client's tools/list and results are unchanged
 * (and the model-facing tools/list budget is not touched).
 *
 * What the client declared is read per request as for MCP Apps (`clientCapabilities`: the 2026-07-28 envelope,
 * else the 2025 connection's initialize). The blocks are built in src/slack/blocks.ts and added to results by
 * slack-results.ts (apart, so the bin's first tools/list loads no block builder).
 */
import type { McpServer, ServerContext, Tool } from '@modelcontextprotocol/server';
import { clientCapabilities } from './era.js';

export const SLACK_BLOCK_KIT_EXTENSION = 'io.slack/block-kit';
export const SLACK_BLOCKS_MIME_TYPE = 'application/vnd.slack.blocks+json';

/** The job tools that answer in blocks besides every paid tool. */
export const JOB_TOOLS = new Set(['get_job', 'wait_for_jobs', 'list_jobs']);

/** The client declared Slack's Block Kit extension with its MIME type, on this request (2026) or at initialize. */
export function clientTakesBlockKit(server: McpServer, ctx: ServerContext | undefined): boolean {
  const caps = clientCapabilities(server, ctx) as { extensions?: Record<string, unknown> } | undefined;
  const ext = caps?.extensions?.[SLACK_BLOCK_KIT_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ext?.mimeTypes) && ext.mimeTypes.includes(SLACK_BLOCKS_MIME_TYPE);
}

/** Whether a listed tool answers in blocks: a paid tool (it takes a confirmation token) or a job tool. */
export function answersInBlocks(tool: Pick<Tool, 'name' | 'inputSchema'>): boolean {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return JOB_TOOLS.has(tool.name) || (props !== undefined && 'confirmation_token' in props);
}

/** tools/list for a Block Kit client: the tools that answer in blocks say so in `_meta.slack`. */
export function withBlockKitMeta(tools: Tool[]): Tool[] {
  return tools.map((t) =>
    answersInBlocks(t)
      ? { ...t, _meta: { ...t._meta, slack: { ...(t._meta?.slack as object), supportsBlockKit: true } } }
      : t,
  );
}
