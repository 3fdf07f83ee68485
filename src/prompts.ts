/**
 * Prompts (design.md section 2): each walks the agent through list → choose → quote → confirm → wait.
 * Registered before connect, because SDK 1.32 freezes capabilities at `connect()` (mcp-notes.md 2.1).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'ugc_talking_video',
    {
      title: 'UGC talking-actor video from a brief',
      description: 'Plan and create a talking-actor video from a short brief, with the cost confirmed first.',
      argsSchema: {
        brief: z.string().describe('What the video should say or sell'),
        language: z.string().optional().describe('Voice language name, e.g. English'),
      },
    },
    ({ brief, language }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Make a short UGC-style talking-actor video. Brief: ${brief}`,
              `1. Call list_avatars and list_voices${language ? ` (language "${language}")` : ''}; pick an avatar and a voice that fit (use the voice's "id").`,
              '2. Write a script of at most 1,500 characters (about 30-60 s spoken).',
              '3. Call create_talking_video. If it answers confirmation_required, show me the cost and wait for my yes, then call it again with the same arguments plus confirmation_token.',
              '4. Call wait_for_jobs with the returned handle until it is completed, then give me the video URL.',
            ].join('\n'),
          },
        },
      ],
    }),
  );
}
