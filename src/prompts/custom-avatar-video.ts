import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completed, type PromptDeps, SOURCES } from './complete.js';
import { CONFIRM, quoted, steps, VOICE_ID, WAIT } from './text.js';

/** Two paid steps: the avatar (returned at once, no job to wait for), then a talking video with it. */
export function registerCustomAvatarVideo(server: McpServer, deps: PromptDeps): void {
  server.registerPrompt(
    'custom_avatar_video',
    {
      title: 'Custom avatar, then a talking video',
      description:
        'Create an avatar from a portrait (and optional voice sample), then a talking video with it; each cost confirmed first.',
      argsSchema: z.object({
        portrait_url: z.string().describe('Public http(s) URL of the portrait (png, jpeg, webp)'),
        brief: z.string().describe('What the video should say'),
        voice_sample_url: z.string().optional().describe('Public http(s) URL of a voice sample to clone'),
        language: completed(deps, 'Voice language name when no sample is given', SOURCES.language),
      }),
    },
    ({ portrait_url, brief, voice_sample_url, language }) =>
      steps(`Create a custom avatar and a talking video with it. Brief: ${brief}`, [
        `Call create_custom_avatar with image "${portrait_url}"${voice_sample_url ? ` and voice "${voice_sample_url}"` : ''}. ${CONFIRM} It returns avatar_id at once (no wait).`,
        `Voice: use selected_voice_id from that result; if there is none, call list_voices${quoted('language', language)} and pick one (${VOICE_ID}).`,
        `Write a script of at most 1,500 characters and call create_talking_video with the returned avatar_id, voice_id and voice_script. A second cost: ${CONFIRM}`,
        WAIT,
      ]),
  );
}
