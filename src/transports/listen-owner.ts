/**
 * `subscriptions/listen` streams hear "updated" only for the caller's own jobs (issue 19 item 5) and campaigns
 * (issue 21 item 4).
 *
 * The SDK's `createMcpHandler` answers `subscriptions/listen` itself, before any server of ours is built: its
 * listen router filters events by the URIs the client named and nothing else, and it hands the bus no caller.
 * What it does do is call `bus.subscribe` synchronously while serving the listen request, which runs inside our
 * request handler. So the HTTP handler runs each authenticated request in `requestOwner` (AsyncLocalStorage),
 * and this bus wrapper reads the owner at subscribe time and checks every job event against the store before
 * handing it to that stream's listener: a stream that names another caller's handle hears nothing of it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { CAMPAIGN_URI_PREFIX, campaignIdOfUri, ownsCampaign } from '../jobs/campaign-uri.js';
import { decodeHandle } from '../jobs/handle.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';

/** The authenticated owner of the HTTP request being served (set by src/transports/http.ts). */
export const requestOwner = new AsyncLocalStorage<string>();

const JOB_PREFIX = 'genplat://jobs/';

/**
 * True when `uri` is neither a job nor a campaign, or names a job whose ledger record belongs to `owner`, or a
 * campaign whose every item does (fails closed).
 */
export async function ownsJobUri(jobs: JobStore, owner: string, uri: string): Promise<boolean> {
  if (uri.startsWith(CAMPAIGN_URI_PREFIX)) {
    const id = campaignIdOfUri(uri);
    return id !== undefined && (await ownsCampaign(jobs, owner, id));
  }
  if (!uri.startsWith(JOB_PREFIX)) return true;
  const raw = uri.slice(JOB_PREFIX.length);
  let ref: ReturnType<typeof decodeHandle>;
  try {
    ref = decodeHandle(raw) ?? decodeHandle(decodeURIComponent(raw));
  } catch {
    return false;
  }
  if (!ref) return false;
  return (await jobs.getByRef(ref))?.owner === owner;
}

/**
 * @param follow (issue 29 item 2) starts following every open job of a listening owner (src/jobs/follower.ts) and
 *   returns the unfollow: while a stream is open its owner's jobs are read at the poller's pace, so the stream
 *   hears them finish with nobody reading them.
 */
export function ownerFilteredBus(
  bus: ServerEventBus,
  owns: (owner: string, uri: string) => Promise<boolean>,
  log: Pick<Logger, 'debug'>,
  follow?: (owner: string) => () => void,
): ServerEventBus {
  return {
    publish: (event) => bus.publish(event),
    subscribe(listener) {
      const owner = requestOwner.getStore();
      const unfollow = owner !== undefined ? follow?.(owner) : undefined;
      const off = bus.subscribe((event: ServerEvent) => {
        if (event.kind !== 'resource_updated') return listener(event);
        // No owner known: not a request we authenticated; job events are not delivered (fail closed).
        if (owner === undefined) return;
        owns(owner, event.uri)
          .then((ok) => {
            // The SDK's listener ignores events once its stream has closed.
            if (ok) listener(event);
          })
          .catch((err) => log.debug('listen event dropped: owner check failed', { error: String(err) }));
      });
      // The SDK calls this when the stream closes (idempotent: the follower's release is too).
      return () => {
        off();
        unfollow?.();
      };
    },
  };
}
