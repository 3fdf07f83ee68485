import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completed, type PromptDeps, SOURCES } from './complete.js';
import { CONFIRM, quoted, steps, WAIT } from './text.js';

/** A content-library template filled from the brief: its fields are the whole request. */
export function registerTemplateVideo(server: McpServer, deps: PromptDeps): void {
  server.registerPrompt(
    'template_video',
    {
      title: 'Template video from a brief',
      description:
        'Pick a content-library template, fill its fields from a brief, and create the video after the cost is confirmed.',
      argsSchema: z.object({
        brief: z.string().describe('What the video is about'),
        category: completed(deps, 'Template category, e.g. ecommerce', SOURCES.category),
        template_id: completed(deps, 'Template id, if already chosen', SOURCES.template_id),
      }),
    },
    ({ brief, category, template_id }) =>
      steps(`Make a template video. Brief: ${brief}`, [
        template_id
          ? `Call list_templates and find template ${template_id}: note its credit and fields.`
          : `Call list_templates${quoted('category', category)}; pick the template that fits the brief (note its credit and fields).`,
        "Fill every one of its fields, and no others: input/textarea text within the field's max characters; image fields, and fields of any type other than input/textarea, need a public http(s) URL (ask the user if you have none).",
        `Call create_template_video with template_id and fields. ${CONFIRM}`,
        WAIT,
      ]),
  );
}
