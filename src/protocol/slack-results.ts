/** Adds `_meta.slack.blocks` to a paid or job tool's answer for a Block Kit client (slack-block-kit.ts). */
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { CONFIRM_META_KEY } from '../apps/link.js';
import type { Logger } from '../log.js';
import type { ConsentCard } from '../paid/consent-card.js';
import { resultBlocks } from '../slack/blocks.js';
import { clientTakesBlockKit, JOB_TOOLS } from './slack-block-kit.js';

/**
 * A tool's answer with `_meta.slack.blocks` added for a Block Kit client (a result with structured content; a
 * task or an `input_required` answer is left as it is).
 */
export function withSlackBlocks<A>(
  server: McpServer,
  ctx: ServerContext,
  tool: string,
  paid: boolean,
  answer: A,
  log: Pick<Logger, 'warn'>,
): A {
  if (!paid && !JOB_TOOLS.has(tool)) return answer;
  const result = answer as CallToolResult;
  if (!result || typeof result !== 'object' || !result.structuredContent || result.isError) return answer;
  if (!clientTakesBlockKit(server, ctx)) return answer;
  const card = (result._meta?.[CONFIRM_META_KEY] as { card?: ConsentCard } | undefined)?.card;
  let blocks: ReturnType<typeof resultBlocks>;
  try {
    blocks = resultBlocks(result.structuredContent, card);
  } catch (err) {
    // Blocks are a rendering of the answer: a builder fault must never cost the person the answer itself.
    log.warn('slack blocks not built', { tool, error: String(err) });
    return answer;
  }
  if (!blocks) return answer;
  return { ...result, _meta: { ...result._meta, slack: { blocks } } } as A;
}
