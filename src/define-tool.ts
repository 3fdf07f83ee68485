/**
 * `defineTool`: a tool is data plus a handler, in one file (style.md 2.2). This module holds the tool
 * contract; `tool-runtime.ts` turns specs into registered MCP tools, and `paid/pipeline.ts` runs a
 * billable one (cost guard, consent, `store.admit`, one POST, `store.settle`).
 */

import type { z } from 'zod';
import type { OnDecided } from './approvals/store-desk.js';
import type { Catalog } from './catalog.js';
import type { Json, PlatformClient } from './client/types.js';
import type { Config, Toolset } from './config.js';
import type { FileServices } from './files/file-services.js';
import type { Estimate, JobEnvelope, JobOutput } from './jobs/envelope.js';
import type { JobKind, JobRef } from './jobs/handle.js';
import type { Poller } from './jobs/poller.js';
import type { CampaignItemFile, JobRecord, JobStore } from './jobs/store.js';
import type { Logger } from './log.js';
import type { PersonLabel } from './people/directory.js';
import type { ToolTransport } from './tool-visibility.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Everything a handler may use. Injected at registration (GitHub's HandlerFunc(deps) pattern). */
export interface ToolContext {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  /** Cached catalog lists (avatars, voices, templates, categories, packs, models), short TTL. */
  catalog: Catalog;
  /** The shared poller: one status read per job per interval however many waits watch it. */
  poller: Poller;
  log: Logger;
  /**
   * Fires when the client cancels the call. Cancelling never touches a platform job: in a billable `run()`
   * it never fires, so the submit POST always finishes and its job id reaches the ledger.
   */
  signal: AbortSignal;
  /** Sends `notifications/progress` if the client gave a token; values must increase (dedup is done for you). */
  progress(p: { progress: number; total?: number; message?: string }): Promise<void>;
  /** HTTP mode: the authenticated caller; undefined on stdio. Jobs and tokens are bound to it. */
  owner: string | undefined;
  /**
   * HTTP mode: who the caller is, for messages people read (approvals): the people file's name and e-mail, else
   * the request's (OAuth claims, a delegating bot's `name`). A label only: `owner` decides everything.
   */
  person?: PersonLabel;
  /**
   * Billable calls: the folders a local file path may name (the client's MCP roots, else GENPLAT_INPUT_DIRS;
   * src/files/confine.ts). Absent = none (local paths refused).
   */
  localRoots?: () => Promise<string[]>;
  /** HTTP mode: uploads and upload links (src/files/file-services.ts); on stdio only the sandbox's loopback stager. */
  files?: FileServices;
  /**
   * What the server does once a decision closes an approval (issue 28: admit, re-price and send the held request,
   * or return its reservation): src/approvals/store-desk.ts `OnDecided`. Absent = not connected (logged).
   */
  onApprovalDecided?: OnDecided;
}

/** What a billable `run()` returns after its single POST was accepted. */
export interface Submission {
  ref: JobRef;
  requestId: string | undefined;
  /** `completed` for results returned at once (custom avatar); default `processing`. */
  status?: 'processing' | 'completed';
  outputs?: JobOutput[];
  creditsCharged?: number;
  /** The platform's own estimate in the submit answer (dedicated family `estimated_credits`). */
  platformEstimate?: number;
  remote: { id?: string; project_id?: string; billing_id?: string };
  details?: Record<string, unknown>;
  /** Upscale: the original URL saved before the record is replaced. */
  originalUrl?: string;
}

/** What a read tool's `run()` returns. `structured` must match the output schema. */
export interface ReadResult<O> {
  structured: O;
  /** Extra `resource_link` content blocks (job outputs, job resources). */
  links?: { uri: string; name: string; mimeType?: string; description?: string }[];
  /** A read that reports a failure (e.g. get_job of a failed job). */
  isError?: boolean;
  /** Result `_meta`: data for an App that the model need not read (e.g. avatar thumbnails for the picker). */
  meta?: Record<string, unknown>;
}

/**
 * The exact platform request a billable call will make, built once by `request()`: the runtime takes the
 * consent fingerprint over it (so a confirmation token is valid for exactly this request) and hands the same
 * object to `run()`, which sends it unchanged.
 */
export interface PlatformRequest<B extends Json = Json> {
  /** The POST path under the API prefix, vendor names resolved: the same body to another route is another job. */
  route: string;
  /** The JSON body, or for multipart the form fields (a file as `FilePart`, its bytes read once). */
  body: B;
}

/** A multipart file field: its bytes are read once, fingerprinted (sha256) and sent as they are. */
export interface FilePart {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

type Shape = z.ZodRawShape;
type In<I extends Shape> = z.infer<z.ZodObject<I>>;

interface BaseSpec<I extends Shape> {
  /** snake_case, verb first; the file name is this with `_` → `-`. */
  name: string;
  title: string;
  toolset: Toolset;
  /** Listed only on this transport (src/tool-visibility.ts): the tool cannot work on the other. */
  only?: ToolTransport;
  /** < 400 characters: what it does, where inputs come from, cost, next step. */
  description: string;
  /** Every field has `.describe()`. Ranges and enums in zod, not prose. */
  input: I;
  annotations: ToolAnnotations;
  /** The MCP App (`ui://` URI, src/apps/uris.ts) that renders this tool's results; billable tools default to the job viewer. */
  ui?: string;
  /**
   * Checks that need live data or cross-field logic (template require_fields, packs, catalog, "voice_id is
   * the voice's id, not voiceId"). Runs before any estimate or POST. @throws UserInputError naming the field.
   */
  validate?(input: In<I>, ctx: ToolContext): Promise<void>;
}

export interface ReadToolSpec<I extends Shape, O extends Shape> extends BaseSpec<I> {
  output: O;
  billable?: undefined;
  run(input: In<I>, ctx: ToolContext): Promise<ReadResult<z.infer<z.ZodObject<O>>>>;
}

export interface BillableToolSpec<I extends Shape, B extends Json = Json> extends BaseSpec<I> {
  /** Creators all return the job envelope; the runtime supplies it. */
  output?: undefined;
  billable: {
    kind(input: In<I>): JobKind;
    /** The spec's price for this input (may call free reads: template credit, catalog, upscale quote). */
    estimate(input: In<I>, ctx: ToolContext): Promise<Estimate>;
    /** One line for the consent prompt and the ledger: what will be made, key inputs. */
    summary(input: In<I>): string;
    /** A sentence added to a quote's next_step: what the user may want to do before confirming. */
    quoteNote?(input: In<I>): string;
    /**
     * Free reads the admission depends on, after consent and before `store.admit`, outside any transaction
     * (upscale: re-read an active attempt so a finished one stops blocking). Free GETs only.
     * @throws UserInputError to refuse early, unsent.
     */
    beforeAdmit?(input: In<I>, ctx: ToolContext): Promise<void>;
    /**
     * True when this request's endpoint accepts a top-level `webhook_url` (HTTP mode with a public URL adds
     * ours at send time when the agent gave none: src/paid/callback.ts). Absent = never (polling-only
     * models, upscale, endpoints without the field). Local data only; no network call.
     */
    acceptsCallback?(input: In<I>, ctx: ToolContext): boolean | Promise<boolean>;
    /**
     * "At most one active job per key" on a non-idempotent endpoint (upscale: one attempt per video), checked
     * by `store.admit` inside its transaction, so two parallel calls (or two processes) cannot both pass.
     * Records without platform ids stop blocking after `staleAfterMs` (nothing can re-read them).
     */
    exclusive?(input: In<I>): {
      key: string;
      staleAfterMs: number;
      /** The refusal when `active` holds the key; `owner` = this caller (hide other callers' handles). */
      refuse(active: JobRecord, owner: string | undefined): Error;
    };
    /** Only a bundle tool has one (`BundleToolSpec`). */
    bundle?: undefined;
  };
  /**
   * Builds the exact request `run()` will send (after `validate`, before the estimate): trimming, defaults
   * and catalog spellings are applied here, once. Free reads only (catalog, files); never a POST.
   * @throws UserInputError naming the field when the input cannot become a request.
   */
  request(input: In<I>, ctx: ToolContext): Promise<PlatformRequest<B>> | PlatformRequest<B>;
  /**
   * Sends `req` (what `request()` built and the user consented to) unchanged in exactly one POST through the
   * client, and maps its answer. Never retries, never polls.
   */
  run(input: In<I>, ctx: ToolContext, req: PlatformRequest<B>): Promise<Submission>;
}

/**
 * A paid tool whose call is a bundle of other paid tools' requests (create_campaign, issue 21 and 28): it only
 * declares its items. The paid path (src/paid/bundle.ts) runs each item's own front half, asks one consent for
 * the total, admits them in one transaction and sends each through the one send, so it has no request() and no
 * run(): nothing it declares is ever POSTed as itself.
 */
export interface BundleToolSpec<I extends Shape> extends BaseSpec<I> {
  output?: undefined;
  billable: {
    bundle: {
      /**
       * The bundle's items, each through its own tool's schema, with every refusal that needs neither a request
       * nor a price (errors name `items[i].<field>`). Free: no platform request.
       */
      items(input: In<I>, ctx: ToolContext): Promise<BundleEntry[]> | BundleEntry[];
      /** Which tool sends an item (the outbox sends queued items by their stored tool name). */
      itemSpec(tool: string): BillableToolSpec<Shape> | undefined;
    };
    quoteNote?(input: In<I>): string;
  };
  request?: undefined;
  run?: undefined;
}

/** One item a bundle tool declares: its tool and its arguments after that tool's schema. */
export interface BundleEntry {
  spec: BillableToolSpec<Shape>;
  input: Record<string, unknown>;
  /** The fields this item varies (the campaign view shows them). */
  varied: Record<string, unknown>;
}

/** Every paid tool: one request (`BillableToolSpec`) or a bundle of them (`BundleToolSpec`). */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds specs of every body type; run() gets its own.
export type PaidToolSpec = BillableToolSpec<Shape, any> | BundleToolSpec<Shape>;

/** Whether a paid tool is a bundle tool (the union's nested tag does not narrow the spec by itself). */
export function isBundle(spec: PaidToolSpec): spec is BundleToolSpec<Shape> {
  return spec.billable.bundle !== undefined;
}

/** One bundle item, validated and priced exactly as its own tool would be (src/paid/bundle.ts `prepareBundle`). */
export interface CampaignItem {
  tool: string;
  kind: JobKind;
  /** The item's arguments after its tool's schema (defaults applied): its `run()` reads them. */
  input: Record<string, unknown>;
  request: PlatformRequest;
  estimate: Estimate;
  summary: string;
  /** The fields this item varies (the campaign view shows them). */
  varied: Record<string, unknown>;
  /** Local files its request names by placeholder (src/files/), staged by the sender right before its POST. */
  files?: CampaignItemFile[];
}

export type ToolSpec<I extends Shape = Shape, O extends Shape = Shape> =
  | ReadToolSpec<I, O>
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds specs of every body type; run() gets its own.
  | BillableToolSpec<I, any>
  | BundleToolSpec<I>;

/**
 * Identity: gives a tool file full type inference and one recognisable shape.
 * The billable overload comes first on purpose: TypeScript fixes the types of context-sensitive arrows
 * during the first overload it tries, so with the read overload first a billable spec's
 * `kind: () => 'actor_video'` and `ref: {kind: …}` widened to `string` and no overload matched.
 */
export function defineTool<I extends Shape, B extends Json = Json>(
  spec: BillableToolSpec<I, B>,
): BillableToolSpec<I, B>;
export function defineTool<I extends Shape>(spec: BundleToolSpec<I>): BundleToolSpec<I>;
export function defineTool<I extends Shape, O extends Shape>(spec: ReadToolSpec<I, O>): ReadToolSpec<I, O>;
export function defineTool(spec: ToolSpec): ToolSpec {
  return spec;
}

export type { CampaignItemFile, Estimate, JobEnvelope };
