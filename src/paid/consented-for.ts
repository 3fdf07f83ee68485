/**
 * Who consented a queued campaign item to what (issue 27 item 3). An item waits in the shared store until some
 * serving process sends it: a restart, another instance of the fleet. That process must send it with the account
 * and platform it was consented for, never its own: a process started with another API key would charge another
 * account, one pointed at another base URL would send the consented body elsewhere, a read-only one must send
 * nothing. So each item records a keyed fingerprint of the API key (HMAC under the store's consent key, purpose
 * `account-id`: recognisable by any process of this store, useless without it, never the key) and the base URL;
 * the sender compares them with its own before it claims anything.
 *
 * Domain code: no MCP SDK import, no network.
 */
import type { Config } from '../config.js';
import type { CampaignItemInfo, ConsentedFor, JobStore } from '../jobs/store.js';
import { keyedDigest } from '../signer.js';

/** The sandbox's simulator belongs to its state dir; its key and loopback port change with every start. */
const SANDBOX = 'sandbox';

/** This process's account and base URL, as a queued item records them. */
export async function consentedFor(
  config: Pick<Config, 'apiKey' | 'baseUrl' | 'sandbox'>,
  jobs: Pick<JobStore, 'consentKey'>,
): Promise<ConsentedFor> {
  const key = await jobs.consentKey();
  if (config.sandbox) return { account: keyedDigest(key, 'account-id', SANDBOX), baseUrl: SANDBOX };
  // Both are set outside the sandbox (the config refuses to serve without them); an empty key matches nothing real.
  return { account: keyedDigest(key, 'account-id', config.apiKey ?? ''), baseUrl: config.baseUrl ?? '' };
}

/**
 * Why this process must not send the item, or undefined: it may. Words for the log (no key, no fingerprint).
 * An item without a record of its consent (admitted before it existed) is sent by no one: fail closed.
 */
export function mayNotSend(
  info: Pick<CampaignItemInfo, 'consentedFor'>,
  mine: ConsentedFor,
  readOnly: boolean,
): string | undefined {
  if (readOnly) return 'this server runs read-only (--read-only): it sends no paid request';
  const theirs = info.consentedFor;
  if (!theirs) return 'the item does not record which account it was consented for';
  if (theirs.baseUrl !== mine.baseUrl) return 'it was consented for another platform base URL (GENPLAT_BASE_URL)';
  if (theirs.account !== mine.account) return 'it was consented for another account (GENPLAT_API_KEY differs)';
  return undefined;
}
