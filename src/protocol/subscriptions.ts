import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { CAMPAIGN_URI_PREFIX, campaignIdOfUri, ownsCampaign } from '../jobs/campaign-uri.js';
import { decodeHandle, isPollable, type JobRef, jobKey } from '../jobs/handle.js';
import { resolveJob } from '../jobs/owner.js';
import type { Observed, Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import { type Logger, silentLogger } from '../log.js';
import { watchCampaign } from './campaign-subscription.js';

export interface SubscriptionDeps {
  poller: Poller;
  log?: Logger;
  /** HTTP mode: with both set, a caller may only subscribe to its own jobs (as for reads). */
  jobs?: JobStore;
  owner?: string | undefined;
  /**
   * Follows every open job of this session's caller until the returned release (issue 29 item 2): held while the
   * session has a subscription, so its jobs and campaigns move with nobody reading them.
   */
  follow?: () => () => void;
}

/** Per session: each watched job costs a poll every 5-10 s, so a runaway client cannot make it unbounded. */
export const MAX_SUBSCRIPTIONS = 100;

const JOB_PREFIX = 'genplat://jobs/';
const installed = new WeakMap<McpServer, () => void>();

function jobRef(uri: string): JobRef | undefined {
  if (!uri.startsWith(JOB_PREFIX)) return undefined;
  const raw = uri.slice(JOB_PREFIX.length);
  try {
    return decodeHandle(raw) ?? decodeHandle(decodeURIComponent(raw));
  } catch {
    return undefined;
  }
}

/**
 * Installs the handlers once per server; returns the function that drops every subscription (also run
 * when the server closes).
 * @throws Error from the SDK when the server did not declare the `resources` capability.
 */
export function installSubscriptions(server: McpServer, deps: SubscriptionDeps): () => void {
  const existing = installed.get(server);
  if (existing) return existing;
  const log = deps.log ?? silentLogger;
  /**
   * Subscribed URI → the watch loop's controller and the job's `jobKey` (both undefined for non-job URIs).
   * Notifications go to the URI the client subscribed to, matched by job, whatever handle the change names.
   */
  const subs = new Map<string, { ac: AbortController; key: string } | undefined>();
  /** The follower's release while the session has a subscription. */
  let unfollow: (() => void) | undefined;
  const followWhileSubscribed = () => {
    if (subs.size > 0) unfollow ??= deps.follow?.();
    else {
      unfollow?.();
      unfollow = undefined;
    }
  };

  async function watch(ref: JobRef, signal: AbortSignal): Promise<void> {
    let o: Observed = await deps.poller.read(ref);
    while (!signal.aborted && o.view.status === 'processing') o = await deps.poller.next(ref, o.seq, signal);
  }

  const offChange = deps.poller.onChange((change) => {
    // The first read of a job is not a change the subscriber missed: it can read the resource itself.
    if (change.previous === undefined || !server.isConnected()) return;
    for (const [uri, sub] of subs) {
      if (sub?.key !== change.key) continue;
      server.server.sendResourceUpdated({ uri }).catch((err) => {
        log.debug('resource update notification not delivered', { uri, error: String(err) });
      });
    }
  });

  server.server.setRequestHandler('resources/subscribe', async (req) => {
    try {
      return await subscribe(req.params.uri);
    } finally {
      followWhileSubscribed();
    }
  });

  async function subscribe(uri: string): Promise<Record<string, never>> {
    if (subs.has(uri)) return {};
    if (subs.size >= MAX_SUBSCRIPTIONS) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `At most ${MAX_SUBSCRIPTIONS} subscriptions per session; unsubscribe from finished jobs first.`,
      );
    }
    if (uri.startsWith(CAMPAIGN_URI_PREFIX)) return subscribeCampaign(uri);
    if (!uri.startsWith(JOB_PREFIX)) {
      subs.set(uri, undefined);
      return {};
    }
    const ref = jobRef(uri);
    if (!ref)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `uri: ${uri} does not name a job handle (e.g. genplat://jobs/actor_video:abc123)`,
      );
    let target = ref;
    if (deps.jobs) {
      try {
        target = (await resolveJob(deps.jobs, deps.owner, ref, 'uri')).ref;
      } catch (err) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, err instanceof Error ? err.message : String(err));
      }
    }
    const ac = new AbortController();
    subs.set(uri, { ac, key: jobKey(target) });
    if (isPollable(target)) {
      watch(target, ac.signal).catch((err) => {
        if (!ac.signal.aborted) log.debug('subscription watch ended', { uri, error: String(err) });
      });
    }
    return {};
  }

  /** A campaign: owner-checked like its read (a campaign nobody has is refused the same way). */
  async function subscribeCampaign(uri: string): Promise<Record<string, never>> {
    const id = campaignIdOfUri(uri);
    if (id === undefined || !deps.jobs || !(await ownsCampaign(deps.jobs, deps.owner, id))) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `uri: no campaign ${uri} is on record for you`);
    }
    const ac = new AbortController();
    // No job key: the campaign's loop sends its own notifications, not the per-job listener above.
    subs.set(uri, { ac, key: '' });
    const updated = () => {
      if (!server.isConnected()) return;
      server.server.sendResourceUpdated({ uri }).catch((err) => {
        log.debug('resource update notification not delivered', { uri, error: String(err) });
      });
    };
    watchCampaign(id, { poller: deps.poller, jobs: deps.jobs }, updated, ac.signal).catch((err) => {
      if (!ac.signal.aborted) log.debug('campaign subscription watch ended', { uri, error: String(err) });
    });
    return {};
  }

  server.server.setRequestHandler('resources/unsubscribe', async (req) => {
    subs.get(req.params.uri)?.ac.abort();
    subs.delete(req.params.uri);
    followWhileSubscribed();
    return {};
  });

  const dispose = () => {
    offChange();
    for (const sub of subs.values()) sub?.ac.abort();
    subs.clear();
    followWhileSubscribed();
  };
  // Chained, not replaced: buildServer or a transport may have its own onclose.
  const previous = server.server.onclose;
  server.server.onclose = () => {
    dispose();
    previous?.();
  };
  installed.set(server, dispose);
  return dispose;
}
