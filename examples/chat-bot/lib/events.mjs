/**
 * The receiver of genplat's events (docs/events.md; Standard Webhooks): a POST whose raw body is verified with
 * the `standardwebhooks` library against the endpoint's `whsec_…` secret (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; a timestamp more than 5 minutes away is refused by the library). Delivery is at least
 * once: an id already handled is answered 200 and not handled again. A handler that throws answers 500, so
 * the server retries the same event later (same id).
 *
 * Body: `{ type, timestamp, data }`; `data.owner` is the caller the job or approval belongs to.
 */
import { Webhook } from 'standardwebhooks';

const SEEN_MAX = 10_000;

/** `eventReceiver({ secret, onEvent, log })` → `(headers, rawBody) => Promise<{ status, body }>`. */
export function eventReceiver({ secret, onEvent, log = () => {} }) {
  const wh = new Webhook(secret);
  const seen = new Set();
  const inFlight = new Map();
  return async (headers, rawBody) => {
    let event;
    try {
      event = wh.verify(rawBody, {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'] ?? '',
      });
    } catch (err) {
      log(`event refused: ${err.message}`);
      return { status: 401, body: 'signature not verified' };
    }
    const id = headers['webhook-id'];
    if (seen.has(id)) return { status: 200, body: 'already handled' };
    // A retry that arrives while the first delivery is still being handled waits for it (one handling per id).
    if (inFlight.has(id)) {
      await inFlight.get(id).catch(() => {});
      return seen.has(id) ? { status: 200, body: 'already handled' } : { status: 500, body: 'failed; retry' };
    }
    const run = Promise.resolve().then(() => onEvent(event, id));
    inFlight.set(id, run);
    try {
      await run;
      seen.add(id);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value);
      return { status: 200, body: 'ok' };
    } catch (err) {
      log(`event ${id} (${event?.type}) failed: ${err?.stack ?? err}`);
      return { status: 500, body: 'failed; retry' };
    } finally {
      inFlight.delete(id);
    }
  };
}
