import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completed, type PromptDeps, SOURCES } from './complete.js';
import { CONFIRM, quoted, steps, VOICE_ID, WAIT } from './text.js';

/** A stock talking actor speaks a script written from the brief. */
export function registerUgcTalkingVideo(server: McpServer, deps: PromptDeps): void {
  server.registerPrompt(
    'ugc_talking_video',
    {
      title: 'UGC talking-actor video from a brief',
      description: 'Plan and create a talking-actor video from a short brief, with the cost confirmed first.',
      argsSchema: z.object({
        brief: z.string().describe('What the video should say or sell'),
        language: completed(deps, 'Voice language name, e.g. English', SOURCES.language),
        gender: completed(deps, 'Avatar gender, e.g. Female', SOURCES.gender),
      }),
    },
    ({ brief, language, gender }) =>
      steps(`Make a short UGC-style talking-actor video. Brief: ${brief}`, [
        `Call list_avatars${quoted('gender', gender)} and list_voices${quoted('language', language)}; pick an avatar and a voice that fit (${VOICE_ID}).`,
        'Write a script of at most 1,500 characters (about 30-60 s spoken).',
        `Call create_talking_video with avatar_id, voice_id and voice_script. ${CONFIRM}`,
        WAIT,
      ]),
  );
}
