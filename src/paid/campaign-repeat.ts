/**
 * A repeated confirm of a campaign (issue 29 item 2): the same create_campaign asked again while the campaign it
 * already admitted still runs — a double click on the App's Confirm or on a consent form, a token redeemed twice, a
 * bot that retries — is answered with THAT campaign: its handle and its current state, never one of its items'
 * handles (the item-level duplicate rule would name whichever item was still active), and nothing is sent again.
 *
 * Two places find it: before the quote (an item of the call is a duplicate of an item of a campaign whose items
 * are this call's items, in order: `repeatedBy`), and at admission (the admission refused the call as a duplicate,
 * or its token as spent, and an active campaign has this call's campaign fingerprint: `sameCampaign`).
 *
 * Domain code: no MCP SDK import.
 */
import type { BundleEntry, ToolContext } from '../define-tool.js';
import { CAMPAIGN_HANDLE_PREFIX, campaignEnvelope, readCampaign } from '../jobs/campaign-view.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import type { JobRecord, JobStore } from '../jobs/store.js';
import { fingerprint as fingerprintOf } from './fingerprint.js';
import { campaignRepeatNextStep } from './wording.js';

/** An item's arguments as the identical-arguments rule compares them (bundle.ts): tool + canonical input. */
const argsOf = (tool: string, input: unknown) => fingerprintOf(tool, { route: '', body: input as never });

/**
 * The campaign `dup` belongs to, when that campaign is this call asked again: same number of items, each with the
 * same tool and arguments, in order. Undefined when `dup` is a single job or another campaign's item (then the
 * item-level duplicate refusal stands).
 */
export async function repeatedBy(
  dup: JobRecord,
  entries: readonly Pick<BundleEntry, 'spec' | 'input'>[],
  jobs: Pick<JobStore, 'bundleItems'>,
): Promise<string | undefined> {
  const id = dup.campaign?.id;
  if (id === undefined) return undefined;
  const items = (await jobs.bundleItems(id)).sort((a, b) => (a.campaign?.index ?? 0) - (b.campaign?.index ?? 0));
  if (items.length !== entries.length) return undefined;
  const same = items.every(
    (r, i) =>
      r.tool === entries[i]!.spec.name && argsOf(r.tool, r.campaign?.input) === argsOf(r.tool, entries[i]!.input),
  );
  return same ? id : undefined;
}

/** The campaign of an active record the admission named, when it is the campaign this call's consent names. */
export function sameCampaign(record: JobRecord | undefined, campaignFingerprint: string): string | undefined {
  return record?.campaign && record.campaign.fingerprint === campaignFingerprint ? record.campaign.id : undefined;
}

/** The answer to a repeat: the campaign's envelope as get_job shows it now, saying nothing more was sent. */
export async function repeatAnswer(
  id: string,
  ctx: Pick<ToolContext, 'jobs' | 'poller' | 'owner'>,
): Promise<JobEnvelope> {
  const handle = `${CAMPAIGN_HANDLE_PREFIX}${id}`;
  const env = campaignEnvelope(await readCampaign(ctx.jobs, ctx.poller, handle, ctx.owner));
  return { ...env, next_step: campaignRepeatNextStep(handle, env.next_step) };
}
