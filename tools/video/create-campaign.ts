import { z } from 'zod';
import { BOARD_URI } from '../../src/apps/uris.js';
import type { BillableToolSpec, BundleEntry, ToolContext } from '../../src/define-tool.js';
import { defineTool } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { firstIdenticalItem } from '../../src/paid/admission.js';
import { MAX_CAMPAIGN_ITEMS } from '../../src/paid/campaign.js';
import createShoppableImage from '../ads/create-shoppable-image.js';
import createShoppableVideo from '../ads/create-shoppable-video.js';
import createFamilyVideo from '../enterprise/create-family-video.js';
import runModel from '../enterprise/run-model.js';
import animateGesture from '../gestures/animate-gesture.js';
import createTemplateVideo from '../library/create-template-video.js';
import createProductVideo from '../product/create-product-video.js';
import upscaleVideo from '../upscale/upscale-video.js';
import createTalkingVideo from './create-talking-video.js';

/**
 * The billable tools a campaign may hold. upscale_video too (the board's "upscale the picked"): its one attempt
 * per video is its exclusive key, checked per item inside the campaign's admission transaction, and two items
 * for one video are refused before the quote. Not create_custom_avatar: its multipart file is not kept in the
 * store, so a resumed item could not be sent as consented.
 */
const ITEM_SPECS = new Map<string, BillableToolSpec<z.ZodRawShape>>(
  [
    animateGesture,
    createFamilyVideo,
    createProductVideo,
    createShoppableImage,
    createShoppableVideo,
    createTalkingVideo,
    createTemplateVideo,
    runModel,
    upscaleVideo,
  ].map((s) => [s.name, s as unknown as BillableToolSpec<z.ZodRawShape>]),
);
const ITEM_TOOLS = [...ITEM_SPECS.keys()];

// `tool` is a string, not an enum, to keep tools/list small (issue 21 item 6): each item's tool is checked in
// validate (`prepareItem`), named `items[i].tool` with the list of tools a campaign takes.
const Item = z.strictObject({
  tool: z.string().describe('create_* (not custom avatar), run_model, animate_gesture or upscale_video'),
  arguments: z.record(z.string(), z.unknown()).describe('its arguments'),
});

type Input = { items: z.infer<typeof Item>[]; vary?: Record<string, unknown[]> | undefined };

/** items, or the one base item times every combination of `vary` (first field varies slowest). */
function expand(input: Input): { tool: string; args: Record<string, unknown>; varied: Record<string, unknown> }[] {
  if (!input.vary || Object.keys(input.vary).length === 0) {
    return input.items.map((i) => ({ tool: i.tool, args: i.arguments, varied: {} }));
  }
  if (input.items.length !== 1) throw new UserInputError('items', 'with vary, give exactly one base item');
  const base = input.items[0]!;
  const fields = Object.entries(input.vary);
  const count = fields.reduce((n, [, values]) => n * values.length, 1);
  if (count > MAX_CAMPAIGN_ITEMS) {
    throw new UserInputError('vary', `expands to ${count} items; at most ${MAX_CAMPAIGN_ITEMS}`);
  }
  let combos: Record<string, unknown>[] = [{}];
  for (const [field, values] of fields) combos = combos.flatMap((c) => values.map((v) => ({ ...c, [field]: v })));
  return combos.map((varied) => ({ tool: base.tool, args: { ...base.arguments, ...varied }, varied }));
}

type Expanded = ReturnType<typeof expand>[number];

/** One item through its own tool's schema; errors name `items[i].<field>`. Free: no request. */
function parseItem(index: number, item: Expanded, ctx: ToolContext): BundleEntry {
  const at = (field: string) => `items[${index}]${field ? `.${field}` : ''}`;
  const spec = ITEM_SPECS.get(item.tool);
  if (!spec) throw new UserInputError(at('tool'), `one of ${ITEM_TOOLS.join(', ')}`);
  if (!ctx.config.toolsets.includes(spec.toolset) || ctx.config.readOnly) {
    throw new UserInputError(at('tool'), `${item.tool} is not enabled on this server (GENPLAT_TOOLSETS)`);
  }
  const parsed = z.strictObject(spec.input).safeParse(item.args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.map(String).join('.');
    throw new UserInputError(
      at(field),
      issue.code === 'unrecognized_keys' ? 'not an argument of this tool' : issue.message,
    );
  }
  return { spec, input: parsed.data as Record<string, unknown>, varied: item.varied };
}

/**
 * One attempt per exclusive key (upscale: per video), whatever allow_duplicate says: two items for one video
 * cannot both run on a non-idempotent endpoint. Checked on the parsed arguments, before any item's (slow) quote.
 * @throws UserInputError naming the second item.
 */
function refuseSharedKeys(items: BundleEntry[]): void {
  const keys = items.map(({ spec, input }) => spec.billable.exclusive?.(input as never).key);
  const twin = firstIdenticalItem(keys);
  if (twin) {
    throw new UserInputError(
      `items[${twin.repeat}]`,
      `acts on the same video as items[${twin.of}]: one upscale attempt per video at a time; keep one of them`,
    );
  }
}

/** A campaign: many creator calls as one bundle: one quote, one consent, one admission (src/paid/bundle.ts). */
export default defineTool({
  name: 'create_campaign',
  title: 'Campaign of variants',
  toolset: 'video',
  description:
    'Many creator calls, one quote and consent: items, or one item × vary (all combinations). Follow its handle.',
  input: {
    items: z.array(Item).min(1).max(MAX_CAMPAIGN_ITEMS).describe('{tool, arguments}'),
    vary: z
      .record(z.string(), z.array(z.unknown()).min(1).max(MAX_CAMPAIGN_ITEMS))
      .optional()
      .describe(`field → values; product ≤ ${MAX_CAMPAIGN_ITEMS}`),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  // The board, not the job viewer: it shows the campaign's consent card, then its variants side by side.
  ui: BOARD_URI,
  billable: {
    bundle: {
      // Every refusal that needs no request and no price: schemas, the same-video rule. The paid path then runs
      // each item's own front half (src/paid/bundle.ts), in order, before the one consent for the total.
      items(input, ctx) {
        const parsed = expand(input as Input).map((item, index) => parseItem(index, item, ctx));
        refuseSharedKeys(parsed);
        return parsed;
      },
      itemSpec: (tool) => ITEM_SPECS.get(tool),
    },
  },
});

export { ITEM_SPECS as CAMPAIGN_ITEM_SPECS };
