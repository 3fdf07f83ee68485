/**
 * A bundle's front half (issue 28 item 7): what `prepareCall` is to a single call. A bundle tool (create_campaign)
 * only declares its items (`BundleToolSpec.billable.bundle.items`); here each item goes through its own tool's
 * front half (validate → request → price, `prepareCall`), and the bundle gets the one request consent binds to
 * (every item's tool, route and exact body, in order), its total quote and its summary. Free: no POST, no write.
 *
 * Order (refusals that need no price before the first price: an upscale quote may probe the platform for
 * minutes): identical arguments → each item's validate → each item's request, its admission's refusals
 * (duplicate of an active job, its tool's `beforeAdmit`) and its price → identical requests → (allow_duplicate)
 * an item identical to a job whose outcome is not known.
 *
 * Domain code: no MCP SDK import.
 */
import type { z } from 'zod';
import type { BundleEntry, BundleToolSpec, CampaignItem, CampaignItemFile, ToolContext } from '../define-tool.js';
import { type Estimate, estimate } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import { firstIdenticalItem } from './admission.js';
import type { BillingDeps } from './call-types.js';
import { atItem, ItemDuplicateError, itemFingerprint, refuseWhatAdmissionWould } from './campaign.js';
import { repeatedBy } from './campaign-repeat.js';
import { fingerprint as fingerprintOf } from './fingerprint.js';
import { campaignItemUnsettled } from './guard.js';
import { type PreparedCall, prepareCall } from './prepare.js';
import { finaliseEstimate } from './pricing/estimate.js';
import { bundleBasis, bundleSummary, identicalItemsError, itemOutcomeNotKnown } from './wording.js';

/** A prepared bundle: what the guard and the consent read (as for a single call), and its items. */
export type PreparedBundle = Omit<PreparedCall, 'files'> & { items: CampaignItem[] };

/**
 * The bundle prepared, or `{ repeatOf }`: an item is a duplicate of an item of a running campaign that is this very
 * call asked again (campaign-repeat.ts): the caller answers with that campaign.
 */
export async function prepareBundle(
  spec: BundleToolSpec<z.ZodRawShape>,
  raw: Record<string, unknown>,
  ctx: ToolContext,
  deps: Pick<BillingDeps, 'config' | 'jobs' | 'now' | 'owner'>,
  local: { files: Parameters<typeof prepareCall>[3]['files']; allowDuplicate: boolean },
): Promise<PreparedBundle | { repeatOf: string }> {
  const entries = await spec.billable.bundle.items(raw as never, ctx);
  if (!local.allowDuplicate) {
    // Identical arguments make identical requests; checked again on the requests below (normalised forms).
    const twin = firstIdenticalItem(
      entries.map(({ spec, input }) => fingerprintOf(spec.name, { route: '', body: input })),
    );
    if (twin) throw identicalItemsError(twin);
  }
  for (const [index, { spec: item, input }] of entries.entries()) {
    await item.validate?.(input as never, ctx).catch((err: unknown) => {
      throw atItem(index, err);
    });
  }
  const items: CampaignItem[] = [];
  // One at a time: the catalog reads each item's validate makes are cached after the first.
  for (const [index, entry] of entries.entries()) {
    try {
      items.push(await prepareItem(index, entry, ctx, local));
    } catch (err) {
      const repeatOf = err instanceof ItemDuplicateError ? await repeatedBy(err.record, entries, deps.jobs) : undefined;
      if (repeatOf !== undefined) return { repeatOf };
      throw err;
    }
  }
  const fps = items.map(itemFingerprint);
  const twin = local.allowDuplicate ? undefined : firstIdenticalItem(fps);
  if (twin) throw identicalItemsError(twin);
  const unsettled = local.allowDuplicate ? await campaignItemUnsettled(deps, fps, deps.owner) : undefined;
  if (unsettled) throw itemOutcomeNotKnown(unsettled.item, unsettled.record, deps.owner);
  return {
    // What the consent binds to: every item's tool, route and exact body, in order.
    request: {
      route: 'campaign',
      body: { items: items.map((i) => ({ tool: i.tool, route: i.request.route, body: i.request.body })) },
    },
    estimate: finaliseEstimate(ctx.config, spec.name, totalEstimate(items)),
    // Not a platform job kind: the envelope's `kind` says what the handle is (`campaign:<id>`).
    kind: 'campaign' as JobKind,
    summary: bundleSummary(items.length, [...new Set(items.map((i) => i.tool))]),
    items,
  };
}

/** One item through its tool's front half (validate → request → price); errors name `items[i].<field>`. */
async function prepareItem(
  index: number,
  { spec, input, varied }: BundleEntry,
  ctx: ToolContext,
  local: { files: Parameters<typeof prepareCall>[3]['files']; allowDuplicate: boolean },
): Promise<CampaignItem> {
  try {
    const { files, ...call } = await prepareCall(spec, input, ctx, {
      files: local.files,
      owner: ctx.owner,
      beforePrice: (request) => refuseWhatAdmissionWould(index, spec, input, request, ctx, local.allowDuplicate),
    });
    // Kept with the queued item: the sender (maybe another process or instance, later) finds each file again and
    // stages it right before the item's POST, if its bytes still hash to what was consented to.
    const kept: CampaignItemFile[] = [...files].map(([placeholder, m]) => {
      const { field, filename, size, contentType, sha256 } = m;
      const where =
        m.source === 'path'
          ? { source: 'path' as const, path: m.path, fileId: m.fileId }
          : { source: 'upload' as const, uploadId: m.id, owner: ctx.owner };
      return { placeholder, field, filename, size, contentType, sha256, ...where };
    });
    return { tool: spec.name, input, varied, ...call, ...(kept.length > 0 ? { files: kept } : {}) };
  } catch (err) {
    throw atItem(index, err);
  }
}

/** The bundle's quote: the sum; bounded only when every item is (an unbounded one counts at its ceiling). */
function totalEstimate(items: CampaignItem[]): Estimate {
  const credits = items.reduce((sum, i) => sum + i.estimate.credits, 0);
  const unbounded = items.filter((i) => !i.estimate.bounded).length;
  return estimate(
    credits,
    bundleBasis(
      items.map((i) => i.estimate.credits),
      unbounded,
    ),
    { bounded: unbounded === 0 },
  );
}
