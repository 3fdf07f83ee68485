import { z } from 'zod';
import { BOARD_URI } from '../../src/apps/uris.js';
import type { BillableToolSpec, CampaignItem, CampaignItemFile, ToolContext } from '../../src/define-tool.js';
import { defineTool } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { filesDeps } from '../../src/files/files-deps.js';
import { type Estimate, estimate } from '../../src/jobs/envelope.js';
import type { JobKind } from '../../src/jobs/handle.js';
import { firstIdenticalItem } from '../../src/paid/admission.js';
import { atItem, identicalItemsError, MAX_CAMPAIGN_ITEMS, refuseWhatAdmissionWould } from '../../src/paid/campaign.js';
import { fingerprint as fingerprintOf } from '../../src/paid/fingerprint.js';
import { prepareCall } from '../../src/paid/pipeline.js';
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

/** The items `validate` prepared for an input object (the pipeline hands the same object to every step). */
const PREPARED = new WeakMap<object, CampaignItem[]>();

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
type ParsedItem = {
  spec: BillableToolSpec<z.ZodRawShape>;
  input: Record<string, unknown>;
  varied: Record<string, unknown>;
};

/** One item through its own tool's schema; errors name `items[i].<field>`. Free: no request. */
function parseItem(index: number, item: Expanded, ctx: ToolContext): ParsedItem {
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

/** One parsed item through its tool's front half (validate → request → price); errors name `items[i].<field>`. */
async function prepareItem(
  index: number,
  { spec, input, varied }: ParsedItem,
  ctx: ToolContext,
): Promise<CampaignItem> {
  try {
    const { files, ...call } = await prepareCall(spec, input, ctx, {
      files: filesDeps(ctx.config, {
        roots: ctx.localRoots,
        uploads: ctx.files?.uploads,
        selfStager: ctx.files?.selfStager,
      }),
      owner: ctx.owner,
      beforePrice: (request) => refuseWhatAdmissionWould(index, spec, input, request, ctx),
    });
    // Kept with the queued item: the sender (maybe another process or instance, later) finds each file again and
    // stages it right before the item's POST, if its bytes still hash to what was consented to.
    const local: CampaignItemFile[] = [...files].map(([placeholder, m]) => {
      const { field, filename, size, contentType, sha256 } = m;
      const where =
        m.source === 'path'
          ? { source: 'path' as const, path: m.path, fileId: m.fileId }
          : { source: 'upload' as const, uploadId: m.id, owner: ctx.owner };
      return { placeholder, field, filename, size, contentType, sha256, ...where };
    });
    return { tool: spec.name, input, varied, ...call, ...(local.length > 0 ? { files: local } : {}) };
  } catch (err) {
    throw atItem(index, err);
  }
}

/**
 * One attempt per exclusive key (upscale: per video), whatever allow_duplicate says: two items for one video
 * cannot both run on a non-idempotent endpoint. Checked on the parsed arguments, before any item's (slow) quote.
 * @throws UserInputError naming the second item.
 */
function refuseSharedKeys(items: ParsedItem[]): void {
  const keys = items.map(({ spec, input }) => spec.billable.exclusive?.(input as never).key);
  const twin = firstIdenticalItem(keys);
  if (twin) {
    throw new UserInputError(
      `items[${twin.repeat}]`,
      `acts on the same video as items[${twin.of}]: one upscale attempt per video at a time; keep one of them`,
    );
  }
}

function itemsOf(input: object): CampaignItem[] {
  const items = PREPARED.get(input);
  // validate() always runs first (src/paid/pipeline.ts prepareCall); fail closed if it did not.
  if (!items) throw new Error('create_campaign: items were not validated');
  return items;
}

/** The campaign's quote: the sum; bounded only when every item is (an unbounded one counts at its ceiling). */
function totalEstimate(items: CampaignItem[]): Estimate {
  const credits = items.reduce((sum, i) => sum + i.estimate.credits, 0);
  const unbounded = items.filter((i) => !i.estimate.bounded).length;
  const basis = `${items.length} items: ${items.map((i, n) => `[${n}] ${i.estimate.credits}`).join(', ')}${
    unbounded ? `; ${unbounded} unbounded (counted at their quote, explicit consent)` : ''
  }`;
  return estimate(credits, basis, { bounded: unbounded === 0 });
}

/** A campaign: many creator calls, one quote, one consent, one admission (issue 21; src/paid/campaign.ts). */
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
  async validate(input, ctx) {
    // Every refusal that needs no price comes before the first price (an upscale quote is a platform request that
    // may probe for minutes): schemas, the same-video rule, identical items, each item's own validate.
    const parsed = expand(input as Input).map((item, index) => parseItem(index, item, ctx));
    refuseSharedKeys(parsed);
    if (!ctx.allowDuplicate) {
      // Identical arguments make identical requests; the pipeline checks the requests again (normalised forms).
      const twin = firstIdenticalItem(
        parsed.map(({ spec, input }) => fingerprintOf(spec.name, { route: '', body: input })),
      );
      if (twin) throw identicalItemsError(twin);
    }
    for (const [index, { spec, input: args }] of parsed.entries()) {
      await spec.validate?.(args as never, ctx).catch((err: unknown) => {
        throw atItem(index, err);
      });
    }
    const items: CampaignItem[] = [];
    // One at a time: the catalog reads each item's validate makes are cached after the first.
    for (const [index, item] of parsed.entries()) items.push(await prepareItem(index, item, ctx));
    PREPARED.set(input, items);
  },
  billable: {
    // Not a platform job kind: the envelope's `kind` says what the handle is (`campaign:<id>`).
    kind: () => 'campaign' as JobKind,
    estimate: async (input) => totalEstimate(itemsOf(input)),
    summary: (input) => {
      const items = itemsOf(input);
      const tools = [...new Set(items.map((i) => i.tool))].join(', ');
      return `campaign of ${items.length} items (${tools})`;
    },
    campaign: {
      items: (input) => itemsOf(input),
      itemSpec: (tool) => ITEM_SPECS.get(tool),
    },
  },
  // What the consent binds to: every item's tool, route and exact body, in order.
  request(input) {
    return {
      route: 'campaign',
      body: { items: itemsOf(input).map((i) => ({ tool: i.tool, route: i.request.route, body: i.request.body })) },
    };
  },
  async run() {
    // The pipeline admits a campaign (store.admitBundle) and sends its items; this spec never POSTs.
    throw new Error('create_campaign items are sent by the campaign sender');
  },
});

export { ITEM_SPECS as CAMPAIGN_ITEM_SPECS };
