/**
 * One event delivery attempt as a client span (issue 30 item 1): `POST event`, the event id (the `webhook-id` every
 * retry repeats), the attempt number, the receiver's host and the status it answered. Never the endpoint's path or
 * query (hook URLs carry their own credential there, see `shownEndpoint`), the signature, the secret or the body.
 */
import type { LeasedDelivery } from '../store/event-types.js';
import { inSpan } from '../telemetry/traces.js';
import type { PostResult } from './post.js';

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname : undefined);

export function inDeliverySpan(d: LeasedDelivery, url: string, post: () => Promise<PostResult>): Promise<PostResult> {
  return inSpan(
    'POST event',
    {
      'http.request.method': 'POST',
      'server.address': hostOf(url),
      'genplat.event.id': d.eventId,
      'genplat.event.attempt': d.attempts + 1,
    },
    async (mark) => {
      const r = await post();
      mark.set({ 'http.response.status_code': r.status });
      if (!r.ok) mark.fail(r.status === undefined ? 'connection' : String(r.status));
      return r;
    },
    { kind: 'client' },
  );
}
