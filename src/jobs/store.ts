/**
 * The job store interface. The file-backed ledger (`ledger.ts`) implements it for stdio and single-instance
 * HTTP; a team deployment with several instances can put Redis or PostgreSQL behind the same interface.
 *
 * Record lifecycle: `recordIntent` (before the POST) → `update` with the outcome (submitted / rejected /
 * unknown + remote ids + request id) → `update` from polls (status, outputs, charges).
 */
import type { Estimate, JobOutput, JobStatus } from './envelope.js';
import type { JobKind, JobRef } from './handle.js';

export type SubmissionOutcome = 'pending' | 'submitted' | 'rejected' | 'unknown';
/** `click`: a token redeemed by a person's Confirm click in the App (src/apps/confirm-tool.ts). */
export type ConsentPath = 'elicitation' | 'token' | 'policy' | 'click';

export interface JobRecord {
  /** Ledger id (UUID), assigned at intent time. */
  id: string;
  /** Self-describing handle once the platform gave ids; `submission:<id>` until then (or for ever if unknown). */
  handle: string;
  /**
   * The platform reference once the platform gave ids. The handle says the same when it can; for an id no
   * handle can carry (`tryEncodeHandle`) this is the only place it is kept, and the handle stays
   * `submission:<id>`. Absent in records written before it existed: `recordRef` falls back to the handle.
   */
  ref?: JobRef | undefined;
  /** The tool that created it, or `external` for a job followed by raw id. */
  tool: string;
  kind: JobKind;
  /** sha256 of tool + route + the exact request body (`cost/fingerprint.ts`): the duplicate guard's and the token's key. */
  fingerprint: string;
  /** Short human summary ("talking video, avatar a1, 230-char script"). */
  summary: string;
  estimate: Estimate | undefined;
  consent: ConsentPath | undefined;
  outcome: SubmissionOutcome;
  /** Envelope status of the job itself, as last seen. */
  status: JobStatus;
  requestId: string | undefined;
  remote: Record<string, string> | undefined;
  outputs: JobOutput[];
  reason: string | undefined;
  /** The platform's reported charge (submit answer or status read); the quote stays in `estimate`. */
  creditsCharged: number | undefined;
  creditsRefunded: number | undefined;
  /**
   * The platform's own estimate reported after submission (the dedicated family's `estimated_credits`):
   * counted like a reported charge when it exceeds the quote (see `reconcile.ts`). Absent in older records.
   */
  platformEstimate?: number | undefined;
  /** Upscale: the video's URL before the upscale replaced it. */
  originalUrl: string | undefined;
  /** HTTP mode: the caller (bearer token identity) that owns the job; undefined in stdio. */
  owner: string | undefined;
  createdAt: string;
  updatedAt: string;
}

export type NewJobRecord = Pick<
  JobRecord,
  'tool' | 'kind' | 'fingerprint' | 'summary' | 'estimate' | 'consent' | 'owner'
> &
  Partial<Pick<JobRecord, 'handle' | 'ref' | 'status' | 'outcome' | 'remote' | 'originalUrl'>>;

export type JobPatch = Partial<Omit<JobRecord, 'id' | 'createdAt' | 'fingerprint' | 'tool' | 'owner'>>;

export interface UpdateOptions {
  /**
   * Default true: on disk (fsync) before the promise resolves. Intents and submission outcomes must always be
   * durable (invariant 3). `false` is for what a status poll learned: it is still written before resolving
   * (other processes see it), but not forced to disk, since a status lost to a power cut is re-read by the
   * next poll; the answer to get_job / wait_for_jobs should not wait for the disk for it.
   */
  durable?: boolean;
}

export interface JobFilter {
  owner?: string | undefined;
  /** Only records created at or after this instant. */
  since?: Date;
  status?: JobStatus[];
  limit?: number;
}

export interface JobStore {
  /** Writes the intent durably (fsync) before the POST is sent. */
  recordIntent(rec: NewJobRecord): Promise<JobRecord>;
  /**
   * Applies a patch durably (unless `options.durable` is false); returns the merged record.
   * @throws if the id is unknown.
   */
  update(id: string, patch: JobPatch, options?: UpdateOptions): Promise<JobRecord>;
  /** By ledger id or by handle (latest record with that handle). */
  get(idOrHandle: string): Promise<JobRecord | undefined>;
  /**
   * The newest record of the job `ref` names, compared by `jobKey` (kind + platform id), so every alias of a
   * handle finds it; a `submission:<id>` ref finds its record by ledger id.
   */
  getByRef(ref: JobRef): Promise<JobRecord | undefined>;
  /** Newest first. Sees records written by other processes on the same state dir. */
  list(filter?: JobFilter): Promise<JobRecord[]>;
  /**
   * Displayed credits spent or held since `since` (UTC day start for the per-day ceiling): the sum of
   * `countedCredits` (reconcile.ts) over the records: while a job may still run, the larger of its quote and
   * what the platform reported; once final, the reported charge (else the quote) minus refunds.
   */
  spendSince(since: Date, owner?: string): Promise<number>;
  /** The newest record with this fingerprint whose outcome is `pending`/`unknown` or whose job is still running. */
  findActiveDuplicate(fingerprint: string, owner?: string): Promise<JobRecord | undefined>;
  /** Marks a confirmation-token nonce used; true the first time (across processes), false ever after. */
  consumeNonce(nonce: string, expiresAt: Date): Promise<boolean>;
  /**
   * Runs `fn` in a critical section shared by every process on this store (and every caller in this one):
   * the runtime re-checks the ceilings and the duplicate guard and writes the intent inside it. Those are
   * check-then-write sequences, so two server processes on one state dir (several stdio hosts share the
   * default dir) could otherwise both pass the check before either wrote, and both send a paid POST.
   * Reads inside `fn` see every record other processes wrote before they left their section.
   * Keep `fn` short (ledger reads and writes; never the POST): every other sender waits for it.
   * @throws when the section cannot be entered in time (nothing has run); whatever `fn` throws.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** A long-lived random secret for HMAC tokens, created once per state dir (mode 0600). */
  secret(): Promise<Buffer>;
  close(): Promise<void>;
}
