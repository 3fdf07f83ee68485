/**
 * `genplat://campaigns/{id}`: which campaign a URI names, whose it is, and which campaign a changed job is an item
 * of. Shared by the 2025 subscriptions (src/protocol/subscriptions.ts) and the 2026 listen streams
 * (src/transports/listen-owner.ts, http-main.ts), so both check ownership the same way.
 */
import { decodeHandle } from './handle.js';
import type { JobStore } from './store.js';

export const CAMPAIGN_URI_PREFIX = 'genplat://campaigns/';

/** The campaign id a URI names (percent-decoded), or undefined for another URI or a malformed one. */
export function campaignIdOfUri(uri: string): string | undefined {
  if (!uri.startsWith(CAMPAIGN_URI_PREFIX)) return undefined;
  try {
    const id = decodeURIComponent(uri.slice(CAMPAIGN_URI_PREFIX.length));
    return id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the campaign has items and every one is `owner`'s (undefined owner = stdio, one user). Fails closed:
 * a campaign nobody has, or with any item of someone else, is not yours.
 */
export async function ownsCampaign(
  jobs: Pick<JobStore, 'bundleItems'>,
  owner: string | undefined,
  id: string,
): Promise<boolean> {
  const items = await jobs.bundleItems(id);
  return items.length > 0 && (owner === undefined || items.every((r) => r.owner === owner));
}

/** The campaign URI of the job behind `handle`, when it is a campaign item. */
export async function campaignUriOfJob(jobs: Pick<JobStore, 'getByRef'>, handle: string): Promise<string | undefined> {
  const ref = decodeHandle(handle);
  const id = ref ? (await jobs.getByRef(ref))?.campaign?.id : undefined;
  return id === undefined ? undefined : `${CAMPAIGN_URI_PREFIX}${encodeURIComponent(id)}`;
}
