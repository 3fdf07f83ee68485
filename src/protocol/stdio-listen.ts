/**
 * `subscriptions/listen` on a 2026-07-28 stdio connection (issue 29 item 2). `serveStdio` serves the listen request
 * at its entry and routes the instance's outbound change notifications onto the open streams by URI (dropping what
 * no stream asked for), and the instance cannot see which streams are open. So for the life of a modern stdio
 * connection the instance sends `notifications/resources/updated` for every change the poller sees (job and
 * campaign URIs, with the progress note of src/transports/change-events.ts) and follows every open job of the
 * one user at the poller's pace (src/jobs/follower.ts): a stream hears its jobs finish with nobody reading them.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import { changePublisher } from '../transports/change-events.js';

export interface StdioListenDeps {
  poller: Poller;
  jobs: Pick<JobStore, 'getByRef' | 'bundleItems'>;
  log: Pick<Logger, 'debug'>;
  follow: () => () => void;
}

/** Starts the feed; returns its stop (the server's close). */
export function feedStdioListen(server: McpServer, deps: StdioListenDeps): () => void {
  const unfollow = deps.follow();
  const publish = changePublisher(
    deps.jobs,
    (event) => {
      if (event.kind !== 'resource_updated' || !server.isConnected()) return;
      server.server.sendResourceUpdated({ ...event.params, uri: event.uri }).catch((err) => {
        deps.log.debug('listen notification not delivered', { uri: event.uri, error: String(err) });
      });
    },
    deps.log,
  );
  const off = deps.poller.onChange(publish);
  return () => {
    off();
    unfollow();
  };
}
