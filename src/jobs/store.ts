/**
 * The job record and its lifecycle, shared by the store (`src/store/`) and everything that reads jobs.
 *
 * Record lifecycle: `admit` writes the intent (before the POST) → `settle` with the outcome (submitted /
 * rejected / unknown + remote ids + request id) → `observe` from polls (status, outputs, charges).
 */
import type { Estimate, JobOutput, JobStatus } from './envelope.js';
import type { JobKind, JobRef } from './handle.js';

/**
 * `queued`: a campaign item admitted (its quote counts in today's spend) and not yet claimed for its POST; a
 * claim moves it to `pending` (the POST may be on the wire) atomically, so it is POSTed at most once.
 */
export type SubmissionOutcome = 'queued' | 'pending' | 'submitted' | 'rejected' | 'unknown';

/**
 * A file of a campaign item: where the sender finds it again (a local path on this machine, stdio; or an upload in
 * the shared store, HTTP, with its owner) and what was consented to (its content hash).
 */
export type CampaignItemFile = {
  placeholder: string;
  field: string;
  filename: string;
  size: number;
  contentType: string;
  sha256: string;
} & (
  | { source?: 'path'; path: string; fileId?: string }
  | { source: 'upload'; uploadId: string; owner: string | undefined }
);

/** What a campaign item keeps from its admission, so a resume sends it without re-validating anything. */
export interface CampaignItemInfo {
  /** The campaign id (handle `campaign:<id>`). */
  id: string;
  /** The campaign's fingerprint (its exact item list): a repeat of an active campaign is its duplicate. */
  fingerprint: string;
  index: number;
  /** How many items the campaign has. */
  total: number;
  /** The item's tool arguments as validated (its tool's `run()` reads them). */
  input: Record<string, unknown>;
  /** The exact request consented to: sent unchanged. */
  request: { route: string; body: unknown };
  /** Key varied fields, for the campaign view (`avatar_id`, `voice_id`, …). */
  varied: Record<string, unknown>;
  /** ISO time after which an unsent item is released (its reservation returned), never sent. */
  sendBy: string;
  /**
   * Local files the request names by placeholder (stdio only: paths on this machine), staged right before the
   * item's POST; the bytes must still hash to `sha256` or the item is released unsent.
   */
  files?: CampaignItemFile[] | undefined;
  /**
   * Who consented this item to what (issue 27 item 3): a keyed fingerprint of the API key (`account-id`, never
   * the key) and the base URL its POST was consented for. A process with another key or base URL sends none of
   * it (src/paid/consented-for.ts). Absent on items admitted before it existed: no process sends those.
   */
  consentedFor?: ConsentedFor | undefined;
}

/** The account (keyed fingerprint of the API key) and platform base URL a queued item may be sent with. */
export interface ConsentedFor {
  account: string;
  baseUrl: string;
}
/**
 * How a paid call was consented to. `click`: a token redeemed by a person's Confirm click in the App
 * (src/apps/confirm-tool.ts), only ever from a client that declared MCP Apps (design.md §1).
 */
export const CONSENT_PATHS = ['elicitation', 'token', 'policy', 'click'] as const;
export type ConsentPath = (typeof CONSENT_PATHS)[number];

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
  /** sha256 of tool + route + the exact request body (`paid/fingerprint.ts`): the duplicate guard's and the token's key. */
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
  /**
   * At most one active record per exclusive key (`AdmitRules.exclusive`): upscale_video's "one attempt per
   * video" on a non-idempotent endpoint. Absent for every other tool.
   */
  exclusiveKey?: string | undefined;
  /** Upscale: the video's URL before the upscale replaced it. */
  originalUrl: string | undefined;
  /** HTTP mode: the caller (bearer token identity) that owns the job; undefined in stdio. */
  owner: string | undefined;
  /**
   * The owner's display name and e-mail as the request knew them at admission (OAuth claims, the name a delegating
   * bot gave, the people file): for the audit export (issue 28 item 3), never for a decision.
   */
  ownerName?: string | undefined;
  ownerEmail?: string | undefined;
  /**
   * The caller's teams at admission (issue 30, `AdmitRules.teams`), fixed then: a team's budget counts this record
   * under each of them whatever the membership is later. Absent: none (stdio, no groups, records before schema 10).
   */
  teams?: string[] | undefined;
  /** A campaign item (issue 21): which campaign, its index and its stored request. */
  campaign?: CampaignItemInfo | undefined;
  /**
   * A campaign item: when the admitting call saw its admission's COMMIT answered (issue 27 item 2). A sweep sends
   * only acknowledged items; an unacknowledged one (the answer was lost, or the process died before this mark)
   * is released after `UNACKNOWLEDGED_GRACE_MS`. Outside `campaign`, which is fixed at admission.
   */
  acknowledgedAt?: string | undefined;
  /**
   * A bundle item that waits for something before it may be sent (an approval: issue 28 item 7). It stays
   * `queued` (its quote is reserved, it is a duplicate of itself) but no claim takes it: `Store.claimItem` moves a
   * held item only when asked `from: 'held'`, so "held → queued" is one compare-and-set (`{ held: undefined }`),
   * and a release is another. Nothing produces it yet.
   */
  held?: { since: string; reason: string } | undefined;
  createdAt: string;
  updatedAt: string;
}

export type NewJobRecord = Pick<
  JobRecord,
  'tool' | 'kind' | 'fingerprint' | 'summary' | 'estimate' | 'consent' | 'owner'
> &
  Partial<
    Pick<
      JobRecord,
      | 'id'
      | 'handle'
      | 'ref'
      | 'status'
      | 'outcome'
      | 'remote'
      | 'originalUrl'
      | 'exclusiveKey'
      | 'campaign'
      | 'held'
      | 'ownerName'
      | 'ownerEmail'
    >
  >;

export type JobPatch = Partial<
  Omit<JobRecord, 'id' | 'createdAt' | 'fingerprint' | 'tool' | 'owner' | 'ownerName' | 'ownerEmail' | 'teams'>
>;

export interface JobFilter {
  owner?: string | undefined;
  /** Only records created at or after this instant. */
  since?: Date;
  status?: JobStatus[];
  limit?: number;
}

/**
 * The store the runtime, tools and poller use: `src/store/` (SQLite by default, PostgreSQL for a fleet).
 * The name is kept so tool code reads `ctx.jobs`; the contract is `Store`.
 */
export type { Store as JobStore } from '../store/types.js';
