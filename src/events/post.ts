/**
 * One signed POST of one event to one endpoint: Standard Webhooks headers (`webhook-id` = the event id, kept by
 * every retry; `webhook-timestamp` = this attempt's time; `webhook-signature` = `v1,<b64>` by the `standardwebhooks`
 * library over id.timestamp.body), the stored body unchanged, undici with timeouts, no redirects followed.
 */
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import { requireUndiciCore } from '../client/undici-core.js';

/** 10 s to connect and answer headers, 10 s for the body: a receiver is expected to acknowledge fast and work later. */
export const POST_TIMEOUT_MS = 10_000;

export interface PostResult {
  ok: boolean;
  status: number | undefined;
  error: string | undefined;
}

export interface EventPoster {
  post(url: string, secret: string, eventId: string, payload: string, at: Date): Promise<PostResult>;
  close(): Promise<void>;
}

export function createEventPoster(timeoutMs = POST_TIMEOUT_MS): EventPoster {
  const { Agent } = requireUndiciCore();
  const agent: Agent = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const signers = new Map<string, Webhook>();
  const signer = (secret: string) => {
    let w = signers.get(secret);
    if (!w) {
      w = new Webhook(secret);
      signers.set(secret, w);
    }
    return w;
  };
  return {
    async post(url, secret, eventId, payload, at) {
      const signature = signer(secret).sign(eventId, at, payload);
      try {
        const res = await agent.request({
          origin: new URL(url).origin,
          path: `${new URL(url).pathname}${new URL(url).search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': eventId,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signature,
            'user-agent': 'genplat-mcp-events',
          },
          body: payload,
        });
        await res.body.dump().catch(() => {});
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return { ok, status: res.statusCode, error: ok ? undefined : `HTTP ${res.statusCode}` };
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const msg = err instanceof Error ? err.message : String(err);
        return { ok: false, status: undefined, error: typeof code === 'string' ? `${code}: ${msg}` : msg };
      }
    },
    close: () => agent.close(),
  };
}
