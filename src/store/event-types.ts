/**
 * Events to bots (issue 29 item 1, docs/events.md): the outbox the store writes in the same transaction as the
 * change that causes each event, and the per-endpoint deliveries a worker (src/events/worker.ts) leases, signs and
 * POSTs. Types only, so every layer may import them.
 *
 * Tables (both backends, one self-contained migration step, events-sql.ts):
 * - `events`: one row per event; `dedupe` (subject, type, state) is unique, so a transition written twice (two
 *   fleet instances, a replay) is one event; `subject` orders delivery (a job's ledger id, `campaign:<id>`,
 *   `approval:<id>`, one per budget: `budget:account`, `budget:person:<id>` (day), `budget:<scope>[:<name>]:<period>`).
 * - `event_deliveries`: one row per (endpoint, event): `due` until `delivered`, `dead` (retried past
 *   GENPLAT_EVENTS_RETRY_FOR) or `skipped` (the endpoint's callers/types do not take it); a short per-row lease
 *   says which instance is delivering it.
 * - `event_attempts`: the delivery log, one append-only row per POST (time, endpoint, HTTP status, error).
 */

export const EVENT_TYPES = [
  'approval.requested',
  'approval.decided',
  'job.submitted',
  'job.completed',
  'job.failed',
  'campaign.progress',
  'campaign.completed',
  'budget.threshold',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * `data` of a `budget.threshold` event (issue 30, docs/events.md): one budget (scope × name × period) reached
 * `percent` of its limit in the period that began at `since`. Person events also carry `personFields`
 * (`owner`, `person`, `bot?`).
 */
export interface BudgetThresholdData {
  scope: 'account' | 'person' | 'team';
  /** person: the owner id; team: the team; absent for the account. */
  name?: string;
  /** person only: the owner id (as every person event carries it). */
  owner?: string;
  period: 'day' | 'week' | 'month';
  /** The period's start, ISO (UTC). */
  since: string;
  limit: number;
  /** Spent or held in the period after the admission that crossed the threshold. */
  spent: number;
  percent: 80 | 100;
}

/** The POSTed body (the wire contract, docs/events.md). */
export interface EventBody {
  type: EventType;
  /** ISO-8601 of when the event happened. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** An event as derived inside a store transaction, before its row exists. */
export interface NewEvent {
  /** `evt_<uuid>`: the `webhook-id`, kept by every retry. */
  id: string;
  /** Unique per transition: `<subject>|<type>|<state>`. */
  dedupe: string;
  subject: string;
  type: EventType;
  /** The caller the event is about (endpoint `callers` filter); undefined for account-wide events and stdio. */
  owner: string | undefined;
  /** Epoch ms. */
  at: number;
  body: EventBody;
}

/** One stored event. */
export interface StoredEvent extends NewEvent {
  seq: number;
}

/** A delivery leased to one instance: the event to POST to one endpoint. */
export interface LeasedDelivery {
  eventSeq: number;
  eventId: string;
  endpoint: string;
  /** The exact JSON body, as stored (signed and sent unchanged by every retry). */
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  /** When the delivery row was created (epoch ms): the retry window counts from it. */
  createdAt: number;
}

/** What one POST came to. `nextAt`: retry then; undefined with `ok: false` = give up (dead). */
export interface DeliveryOutcome {
  ok: boolean;
  at: number;
  status: number | undefined;
  error: string | undefined;
  ms: number;
  nextAt?: number | undefined;
  /** Not sent: the endpoint's current callers/types no longer take the event (the row becomes `skipped`). */
  skipped?: boolean;
}

export interface DeliveryAttempt {
  seq: number;
  at: string;
  eventId: string;
  type: string;
  endpoint: string;
  status: number | undefined;
  error: string | undefined;
  ms: number;
  holder: string;
}

export interface DeliverySummary {
  endpoint: string;
  due: number;
  delivered: number;
  dead: number;
  /** Epoch ms of the oldest undelivered event, if any. */
  oldestDue: number | undefined;
  lastError: string | undefined;
}

/** An endpoint as the fan-out needs it: its key (the URL) and which events it takes. */
export interface EndpointFilter {
  key: string;
  takes(e: { type: string; owner: string | undefined }): boolean;
}

export interface EventStoreMethods {
  /** Every stored event with `seq` above `afterSeq`, oldest first (tests, the CLI). */
  events(afterSeq?: number, limit?: number): Promise<StoredEvent[]>;
  /**
   * Creates the missing delivery rows of events with `seq` above `afterSeq`, for each endpoint: `due`, or `skipped`
   * when the endpoint does not take the event or it happened before `since` (the retry window: an endpoint added
   * later is not flooded with history). Returns the highest seq looked at, with its time.
   */
  fanOutEvents(
    endpoints: readonly EndpointFilter[],
    since: number,
    afterSeq: number,
    now: number,
  ): Promise<{ seq: number; at: number } | undefined>;
  /**
   * Leases up to `limit` due deliveries of `endpoint` (next attempt due, no live lease, no earlier undelivered
   * event of the same subject), each by compare-and-set: one instance holds a delivery at a time.
   */
  leaseDeliveries(
    endpoint: string,
    holder: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<LeasedDelivery[]>;
  /** Records a POST's outcome (the log row always; the delivery's state only while `holder` holds it). */
  recordDelivery(d: LeasedDelivery, holder: string, outcome: DeliveryOutcome): Promise<void>;
  /** The delivery log, newest last. */
  deliveryLog(limit?: number): Promise<DeliveryAttempt[]>;
  /** Per endpoint: due / delivered / dead counts (doctor). */
  deliverySummary(): Promise<DeliverySummary[]>;
}
