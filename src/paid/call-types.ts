/**
 * The shapes of a paid call at the pipeline's edge: what the runtime passes in (`PaidCallArgs`, `BillingDeps`) and
 * what comes back (`PaidCallResult`). Their own module so the pipeline and the campaign path (which the pipeline
 * calls) both read them without importing each other.
 */
import type { Config } from '../config.js';
import type { Stager } from '../files/stage-s3.js';
import type { UploadSource } from '../files/upload-source.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import type { JobStore } from '../jobs/store.js';
import type { PaidStep } from '../kill-steps.js';
import type { Logger } from '../log.js';
import type { CallbackUrlMaker } from './callback.js';
import type { ConsentCard } from './consent-card.js';
import type { ElicitOutcome, FormRound } from './guard.js';
import type { PaidResult } from './settle.js';

export type { PaidResult };

/**
 * A paid call's outcome, or (2026-07-28 clients) "ask the person with this form first". A quote
 * (`confirmation_required`) carries its consent card, for the App's card (src/apps/link.ts).
 */
export type PaidCallResult =
  | PaidResult
  /** A campaign asked again (campaign-repeat.ts): an answer about it, like get_job's, never a new task. */
  | { envelope: JobEnvelope; repeat: true }
  | { envelope: JobEnvelope; card: ConsentCard }
  | { askForm: { message: string; envelope: JobEnvelope } };

export interface BillingDeps {
  config: Config;
  jobs: JobStore;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio. */
  owner: string | undefined;
  /**
   * HTTP mode: the caller's teams, from verified identity only (people file groups, OAuth groups claim:
   * src/people/directory.ts). Their budgets apply, and each admitted record is tagged with them.
   */
  teams?: readonly string[] | undefined;
  /**
   * What the caller's credential may do (src/auth/scopes.ts): only `spend` lets any consent carrier admit the call;
   * `quote` is answered with the quote alone (guard.ts `quoteOnly`). The runtime passes `spend` on stdio.
   */
  access: 'read' | 'quote' | 'spend';
  /** The caller's name and e-mail as this request knows them (src/people/), recorded for the audit export. */
  ownerLabel?: { name?: string | undefined; email?: string | undefined } | undefined;
  /** ms since epoch; injectable so tests can expire tokens and move days without sleeping. */
  now: () => number;
  tokenTtlMs?: number | undefined;
  /** Test-only: called at each named step of a paid call (`steps.ts`). */
  onStep?: ((step: PaidStep) => void) | undefined;
  /** HTTP mode with a public URL: our per-job callback URL (`callback.ts`); undefined = polling only. */
  callbackUrl?: CallbackUrlMaker | undefined;
  /** stdio: the client's MCP roots (src/files/confine.ts); undefined or empty = GENPLAT_INPUT_DIRS. */
  roots?: (() => Promise<string[] | undefined>) | undefined;
  /** `upload:<id>` references (src/files/upload-source.ts); default: none known. */
  uploads?: UploadSource | undefined;
  /** HTTP with GENPLAT_PUBLIC_URL: staging into the shared store (src/files/stage-self.ts); a bucket wins. */
  selfStager?: Stager | undefined;
}

export interface PaidCallArgs {
  /** The tool's own arguments (guard arguments removed). */
  input: Record<string, unknown>;
  token: string | undefined;
  allowDuplicate: boolean;
  /** Who presented `token`: `human` only for the App's Confirm click (src/apps/confirm-tool.ts). */
  carrier?: 'model' | 'human';
  /** Asks the user with a form (SDK call, injected); undefined when the client cannot be asked. */
  elicit: ((message: string) => Promise<ElicitOutcome>) | undefined;
  /** The round of a 2026-07-28 confirmation form; undefined when the client cannot be asked that way. */
  form?: FormRound | undefined;
}

/** The record fields naming the owner (`JobRecord.ownerName` / `ownerEmail`), only those the request knows. */
export function ownerNameOf(deps: Pick<BillingDeps, 'ownerLabel'>): { ownerName?: string; ownerEmail?: string } {
  const { name, email } = deps.ownerLabel ?? {};
  return { ...(name ? { ownerName: name } : {}), ...(email ? { ownerEmail: email } : {}) };
}
