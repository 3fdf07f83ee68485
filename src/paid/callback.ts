/**
 * Send-time callback URL (issue 11 item 5, HTTP mode with `GENPLAT_PUBLIC_URL`).
 *
 * Consent binds the agent's request: the fingerprint (src/paid/fingerprint.ts) is taken over what `request()`
 * built, before admission, and the confirm retry must rebuild the same body to match its token. Our callback
 * URL names the ledger record, which exists only after `store.admit`, so it cannot be in that body. It is added
 * here, after admission and just before the one POST, and only as a top-level `webhook_url` on an endpoint that
 * accepts one when the agent gave none. So: the POSTed body = the consented body + at most our `webhook_url`;
 * the body minus it fingerprints to the ledger's fingerprint (test/http/webhooks.test.ts checks it). It changes
 * no price and no output: the platform only calls us back, and that call is a hint (src/webhooks/receiver.ts).
 */
import type { z } from 'zod';
import type { BillableToolSpec, PlatformRequest, ToolContext } from '../define-tool.js';
import type { Logger } from '../log.js';

/** Makes our callback URL for a ledger record; undefined when webhooks are off (stdio, no public URL). */
export type CallbackUrlMaker = (ledgerId: string) => Promise<string>;

function isPlainBody(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && !(body instanceof Uint8Array);
}

/**
 * The request `run()` sends: `request` itself, or a copy with our `webhook_url` added. Never throws: a
 * callback is an optimisation, so any failure here sends the consented request unchanged (polling covers it).
 */
export async function withCallback(
  spec: BillableToolSpec<z.ZodRawShape>,
  input: never,
  ctx: ToolContext,
  request: PlatformRequest,
  ledgerId: string,
  make: CallbackUrlMaker | undefined,
  log: Logger,
): Promise<PlatformRequest> {
  const accepts = spec.billable.acceptsCallback;
  if (!make || !accepts || !isPlainBody(request.body)) return request;
  // The agent's own webhook_url (allow-listed) is theirs to keep: the platform takes one URL only.
  const own = request.body.webhook_url;
  if (own !== undefined && own !== null && own !== '') return request;
  try {
    if (!(await accepts(input, ctx))) return request;
    return { route: request.route, body: { ...request.body, webhook_url: await make(ledgerId) } };
  } catch (err) {
    log.warn('no callback URL for this job; it is followed by polling', { ledger: ledgerId, error: String(err) });
    return request;
  }
}
