/**
 * The signed `requestState` of the 2026-07-28 confirmation form (multi round-trip requests). It is the SDK's
 * codec (HMAC-SHA256, expiring); its key is derived from the consent key the store keeps, so every instance
 * of a fleet on one PostgreSQL verifies what any other minted, and a restart does not void a pending form.
 *
 * What it carries is our confirmation token, which already binds the tool, the exact request body, the quote,
 * the caller and an expiry, and whose nonce `store.admit` consumes once: the codec adds tamper-evidence at the
 * protocol seam (a forged or expired state is refused by the SDK before the handler runs).
 */
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { purposeKey } from '../signer.js';

export interface ConsentState {
  /** The confirmation token the form's answer redeems. */
  t: string;
}

export interface ConsentStateCodec {
  mint(state: ConsentState, ctx: ServerContext): Promise<string>;
  /** For `ServerOptions.requestState.verify`: throws on a bad MAC, expiry or malformed state. */
  verify(state: string, ctx: ServerContext): Promise<ConsentState>;
}

/** @param ttlMs the state's lifetime: the confirmation token's, so neither outlives the other. */
export function consentStateCodec(consentKey: () => Promise<Buffer>, ttlMs: number): ConsentStateCodec {
  let codec: Promise<RequestStateCodec<ConsentState>> | undefined;
  const get = () => {
    codec ??= consentKey().then((key) =>
      createRequestStateCodec<ConsentState>({
        // The SDK's codec keeps its own format; its key comes from the one signer's derivation (purpose
        // `request-state`), so it is never the token key nor any other purpose's.
        key: purposeKey(key, 'request-state'),
        ttlSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      }),
    );
    return codec;
  };
  return {
    mint: async (state, ctx) => (await get()).mint(state, ctx),
    verify: async (state, ctx) => (await get()).verify(state, ctx),
  };
}
