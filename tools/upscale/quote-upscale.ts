import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { upscaleQuoteFigure } from '../../src/paid/pricing/estimate.js';
import { checkVideoType, quoteWithProgress, upscaleFields } from '../_shared/upscale.js';

const num = (what: string) => z.number().optional().describe(what);

/** POST /upscale/quote: probes an owned video and prices an upscale. Starts no job and costs nothing. */
export default defineTool({
  name: 'quote_upscale',
  title: 'Quote a video upscale',
  toolset: 'upscale',
  description:
    'Prices an upscale of an owned video (ids from a finished job). Free, slow (minutes); then upscale_video.',
  input: upscaleFields,
  output: {
    credits: z.number().describe('displayed credits'),
    api_units: z.number().describe('API credit units (credits / 100)'),
    upscale_factor: z.number().optional().describe('output / source size'),
    metadata: z
      .object({
        width: num('px'),
        height: num('px'),
        duration: num('s'),
        fps: num('frames per second'),
        frames: num('frame count'),
      })
      .optional()
      .describe('the probed source'),
    next_step: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async validate(input, ctx) {
    checkVideoType(input.video_type, ctx.config.vendors);
  },
  async run(input, ctx) {
    const { data } = await quoteWithProgress(input, ctx);
    const e = upscaleQuoteFigure(data.quote.credits);
    const m = data.metadata;
    return {
      structured: {
        credits: e.credits,
        api_units: e.api_units,
        ...(data.upscaleFactor !== undefined ? { upscale_factor: data.upscaleFactor } : {}),
        ...(m
          ? {
              metadata: {
                ...(m.width !== undefined ? { width: m.width } : {}),
                ...(m.height !== undefined ? { height: m.height } : {}),
                ...(m.duration !== undefined ? { duration: m.duration } : {}),
                ...(m.fps !== undefined ? { fps: m.fps } : {}),
                ...(m.frames !== undefined ? { frames: m.frames } : {}),
              },
            }
          : {}),
        next_step:
          'Informational: upscale_video takes its own current quote. Call upscale_video with the same arguments to start it.',
      },
    };
  },
});
