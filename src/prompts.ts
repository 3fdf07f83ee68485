/**
 * Prompts (design.md section 2): each walks the agent through list → choose → quote → confirm → wait.
 * Registered before connect, because SDK 1.32 freezes capabilities at `connect()` (mcp-notes.md 2.1).
 * Arguments complete from the live catalog (deps.catalog), one file per prompt under src/prompts/.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { PromptDeps } from './prompts/complete.js';
import { registerCustomAvatarVideo } from './prompts/custom-avatar-video.js';
import { registerProductAd } from './prompts/product-ad.js';
import { registerTemplateVideo } from './prompts/template-video.js';
import { registerUgcTalkingVideo } from './prompts/ugc-talking-video.js';

export type { PromptDeps } from './prompts/complete.js';

export function registerPrompts(server: McpServer, deps: PromptDeps): void {
  registerUgcTalkingVideo(server, deps);
  registerProductAd(server, deps);
  registerCustomAvatarVideo(server, deps);
  registerTemplateVideo(server, deps);
}
