import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completed, oneOf, type PromptDeps, SOURCES } from './complete.js';
import { CONFIRM, quoted, steps, VOICE_ID, WAIT } from './text.js';

const KINDS = ['product_video', 'shoppable_image', 'shoppable_video'] as const;

/** What each kind means, so the agent can choose (or ask) when the user did not say. */
const KIND_LINES: Record<(typeof KINDS)[number], string> = {
  product_video:
    'create_product_video (an actor holds the product). Engine v2 (script + voice, ≤ 90 s), human (≤ 30 s) or scenes (1-4 scenes, each script + description). For v2/human call list_voices and ' +
    `${VOICE_ID}; write the script from the brief; image_url = the product image.`,
  shoppable_image:
    'call list_shoppable_packs; pick a category and one of its formats (and an aspect ratio it allows); create_shoppable_image with image_url = the product image and context = the brief.',
  shoppable_video:
    'call list_shoppable_packs; pick a category, one of its formats and durations; create_shoppable_video with image_urls = [the product image] and context = the brief.',
};

/** A product ad from one product photo: product-in-hand video, or a shoppable image or video. */
export function registerProductAd(server: McpServer, deps: PromptDeps): void {
  server.registerPrompt(
    'product_ad',
    {
      title: 'Product ad from a product image',
      description:
        'Create a product-in-hand video or a shoppable ad image/video from a product image URL and a brief, with the cost confirmed first.',
      argsSchema: z.object({
        product_image_url: z.string().describe('Public http(s) URL of the product image'),
        brief: z.string().describe('What the ad should say or show'),
        kind: oneOf('product_video, shoppable_image or shoppable_video; default: choose from the brief', KINDS),
        category: completed(deps, 'Shoppable pack category (shoppable kinds)', SOURCES.pack_category),
      }),
    },
    ({ product_image_url, brief, kind, category }) =>
      steps(`Make a product ad from the product image ${product_image_url}. Brief: ${brief}`, [
        kind
          ? `Make a ${kind}${quoted('category', category)}: ${KIND_LINES[kind]}`
          : `Choose the kind that fits the brief (ask the user if unclear):\n${KINDS.map((k) => `   - ${k}: ${KIND_LINES[k]}`).join('\n')}${category ? `\n   Shoppable category: "${category}".` : ''}`,
        `Call the create tool. ${CONFIRM}`,
        WAIT,
      ]),
  );
}
