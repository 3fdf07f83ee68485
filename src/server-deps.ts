/**
 * What every server build is made from (`buildServer`, the deferred stdio server, the shell and the handlers): its
 * own module so those files share it without importing each other.
 */

import type { ResourceSpec } from '../resources/index.js';
import type { OnDecided } from './approvals/store-desk.js';
import type { Access } from './auth/scopes.js';
import type { Catalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import type { ToolSpec } from './define-tool.js';
import type { FileServices } from './files/file-services.js';
import type { Follower } from './jobs/follower.js';
import type { Poller } from './jobs/poller.js';
import type { JobStore } from './jobs/store.js';
import type { PaidStep } from './kill-steps.js';
import type { Logger } from './log.js';
import type { CallbackUrlMaker } from './paid/callback.js';
import type { PersonLabel } from './people/directory.js';
import type { ConsentStateCodec } from './protocol/request-state.js';

export interface ServerDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  /** Defaults to a cached catalog over `client`. */
  catalog?: Catalog;
  /** Defaults to a poller over `client` and `jobs` (closed with the server). */
  poller?: Poller;
  /** The job follower over that poller (issue 29 item 2); defaults to one of this server's (closed with it). */
  follower?: Follower;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio. */
  owner?: string;
  /**
   * HTTP mode: what the credential may do (src/auth/scopes.ts). `quote`: paid tools answer with the quote only and
   * admit nothing, whatever consent the call carries. Undefined on stdio (the operator's own process: spend).
   */
  access?: Access;
  /** HTTP mode: who the caller is, for messages people read (src/people/directory.ts); undefined on stdio. */
  person?: PersonLabel;
  /** Defaults to ALL_TOOLS. */
  tools?: ToolSpec[];
  /** Defaults to ALL_RESOURCES. */
  resources?: ResourceSpec[];
  /** Test hooks: clock and confirmation-token lifetime. */
  now?: () => number;
  tokenTtlMs?: number;
  /** Test hook: called at each named step of a paid call (src/kill-steps.ts), e.g. to cut the store there. */
  onPaidStep?: ((step: PaidStep) => void) | undefined;
  /** Defaults to a codec keyed from `jobs.consentKey()`; pass one to share it across per-request instances. */
  consentState?: ConsentStateCodec;
  /**
   * Stateless HTTP: this instance answers one request and is dropped. It then keeps nothing that outlives the
   * request: no `resources/subscribe` watches and no MCP log forwarding (there is no session to send on);
   * change notifications go through the HTTP handler's event bus instead (src/transports/http.ts).
   */
  perRequest?: boolean;
  /** HTTP mode with a public URL: our per-job callback URL for endpoints that accept `webhook_url`. */
  callbackUrl?: CallbackUrlMaker;
  /** HTTP mode: uploads, the self stager and upload links (src/files/file-services.ts); stdio `--sandbox`: its loopback self stager (src/files/sandbox-staging.ts). */
  files?: FileServices;
  /**
   * This instance answers a 2026-07-28 client, whose per-resource updates come on `subscriptions/listen` streams:
   * with `perRequest` fed by the HTTP handler's event bus (the SDK honours a listen filter's `resourceSubscriptions`
   * only when the server advertises `resources.subscribe`, so it is advertised then); on stdio fed by this
   * instance for the connection's life (src/protocol/stdio-listen.ts).
   */
  listenStreams?: boolean;
  /** What a decision that closes an approval sets off (issue 28; `ToolContext.onApprovalDecided`). */
  onApprovalDecided?: OnDecided;
}
