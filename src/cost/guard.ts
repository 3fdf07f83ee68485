/**
 * The cost guard (design.md section 4). Order: ceilings → duplicate check → consent; the runtime has
 * already validated and estimated, and sends + writes the ledger only when this says `allow`.
 *
 * Ceilings and the duplicate check come first on purpose: they refuse whatever the consent, so a token or a
 * lenient policy can never lift them, and the user is never asked to agree to something that will be refused.
 */

import {
  askConsent,
  type ConsentCarrier,
  type ElicitOutcome,
  elicitationCarrier,
  type FormRound,
  formRoundCarrier,
  policyCarrier,
  tokenCarrier,
  unsettledWarning,
} from '../billing/consent.js';
import { cardText, consentCard, priceLine } from '../billing/consent-card.js';
import type { Config } from '../config.js';
import { GenplatError, UserInputError } from '../errors.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import { mayStillRun } from '../jobs/reconcile.js';
import type { ConsentPath, JobRecord, JobStore } from '../jobs/store.js';
import type { AdmitRefusal, AdmitRules } from '../store/types.js';
import { userDayLimit } from './budgets.js';
import { BodyTooDeepError, fingerprint as fingerprintOf, MAX_BODY_DEPTH } from './fingerprint.js';
import { issueToken, TOKEN_TTL_MS } from './token.js';

export type { ElicitOutcome, FormRound };
export { unsettledWarning };

/** The guard refused the call: nothing was sent, nothing charged. */
export class CostRefusedError extends GenplatError {
  readonly refusal: 'per_call' | 'per_day' | 'per_user_day' | 'duplicate';
  constructor(refusal: CostRefusedError['refusal'], message: string, nextStep: string) {
    super(message, nextStep);
    this.refusal = refusal;
  }
}

export interface GuardRequest {
  tool: string;
  kind: JobKind;
  /** The exact request `run()` will send (route and body): consent and the duplicate rule bind to it. */
  request: { route: string; body: unknown };
  estimate: Estimate;
  /** What will be made, key inputs (the spec's `billable.summary`). */
  summary: string;
  owner: string | undefined;
  token: string | undefined;
  allowDuplicate: boolean;
  /**
   * Who presented `token`: `human` = a Confirm click in the App (an app-only tool the model cannot call);
   * `model` (default) = the model's own tool call. With GENPLAT_CONSENT=human only the first redeems.
   */
  carrier?: 'model' | 'human';
  /**
   * Asks the user with a pushed form (2025-era `elicitation/create`); undefined when the client cannot be
   * asked (no capability, skip-listed, off, or a 2026-07-28 client, which gets `form` instead).
   */
  elicit: ((message: string) => Promise<ElicitOutcome>) | undefined;
  /** The round of a 2026-07-28 confirmation form (`input_required`); undefined when no form can be shown. */
  form?: FormRound | undefined;
}

export interface GuardDeps {
  config: Config;
  jobs: JobStore;
  /** ms since epoch; injectable so tests can expire tokens without sleeping. */
  now: () => number;
  tokenTtlMs?: number;
}

export type GuardDecision =
  /** `duplicateOf`: the unknown/pending identical record the user explicitly agreed to resend past. */
  | {
      kind: 'allow';
      consent: ConsentPath;
      fingerprint: string;
      duplicateOf?: string;
      /** A token's nonce: consumed by `store.admit` with the intent (single use everywhere). */
      nonce?: { value: string; expiresAt: Date };
    }
  /** `confirmation_required` or `declined`: a normal (non-error) answer; nothing charged. */
  | { kind: 'answer'; envelope: JobEnvelope }
  /**
   * Ask the person with a form in a second round trip: `envelope` is the `confirmation_required` answer
   * whose token the form's signed state carries (and what a client that drops the form is left with).
   */
  | { kind: 'ask'; message: string; envelope: JobEnvelope }
  | { kind: 'refuse'; error: CostRefusedError };

const fmt = (n: number) => n.toLocaleString('en-US');

/** Start of the current UTC day: the per-day ceiling's window. */
export function utcDayStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * The consent form's message: the consent card as text (src/billing/consent-card.ts: cost and whether it is
 * proven, how it was computed, what will be made, every field of `body` in full), after any resend warning.
 */
export function consentMessage(
  tool: string,
  est: Estimate,
  summary: string,
  earlier?: JobRecord,
  body?: unknown,
): string {
  return cardText(consentCard({ tool, body, estimate: est, summary }), earlier ? unsettledWarning(earlier) : undefined);
}

/**
 * The newest identical record (same owner) whose submission outcome is `unknown` or still `pending`: a job
 * that may exist without our knowing its id. `allow_duplicate` may resend past it only with explicit consent.
 * Reads every such record (not only the newest active one), so a running resend does not hide an older unknown.
 * @throws whatever the job store throws when it cannot be read.
 */
export async function findUnsettledDuplicate(
  deps: GuardDeps,
  fp: string,
  owner: string | undefined,
): Promise<JobRecord | undefined> {
  // Pending records have status `submitted`; unknown ones `unknown` (ledger.ts recordIntent / tool-runtime).
  const candidates = await deps.jobs.list({ owner, status: ['unknown', 'submitted'] });
  return candidates.find(
    (r) =>
      r.fingerprint === fp &&
      (owner === undefined || r.owner === owner) &&
      (r.outcome === 'unknown' || r.outcome === 'pending'),
  );
}

/**
 * Ceilings: per call, then per UTC day (spend from the ledger, including held and unknown submissions).
 * @throws whatever the job store throws when it cannot be read (the runtime refuses the send).
 */
export async function checkCeilings(
  deps: GuardDeps,
  est: Estimate,
  owner?: string | undefined,
): Promise<CostRefusedError | undefined> {
  const { maxCreditsPerCall, maxCreditsPerDay } = deps.config;
  if (est.credits > maxCreditsPerCall) return perCallRefusal(est.credits, maxCreditsPerCall);
  // The per-day ceiling protects the one platform account behind the key, so over HTTP it counts every
  // caller's spend, not only this caller's: N callers must not be able to spend N times the ceiling.
  const dayStart = utcDayStart(deps.now());
  const spent = await deps.jobs.spendSince(dayStart);
  if (spent + est.credits > maxCreditsPerDay) return perDayRefusal(spent, est.credits, maxCreditsPerDay);
  // Then the caller's own budget (same counting rule, their records only): read here so the user is never
  // asked to consent to a call their budget refuses; `store.admit` checks it again under its lock.
  const limit = userDayLimit(deps.config, owner);
  if (owner !== undefined && limit !== undefined) {
    const mine = await deps.jobs.spendSince(dayStart, owner);
    if (mine + est.credits > limit) return perUserDayRefusal(owner, mine, est.credits, limit);
  }
  return undefined;
}

function perCallRefusal(credits: number, limit: number): CostRefusedError {
  return new CostRefusedError(
    'per_call',
    `Refused: this call is estimated at ${fmt(credits)} credits, above the per-call ceiling of ${fmt(limit)} credits (GENPLAT_MAX_CREDITS_PER_CALL). Nothing was sent or charged.`,
    'Choose a cheaper option, or ask the operator to raise GENPLAT_MAX_CREDITS_PER_CALL.',
  );
}

function perDayRefusal(spent: number, credits: number, limit: number): CostRefusedError {
  return new CostRefusedError(
    'per_day',
    `Refused: ${fmt(spent)} credits already spent or held today (UTC) on this account; this call's ${fmt(credits)} would exceed the per-day ceiling of ${fmt(limit)} credits (GENPLAT_MAX_CREDITS_PER_DAY). Nothing was sent or charged.`,
    'Wait for the next UTC day, or ask the operator to raise GENPLAT_MAX_CREDITS_PER_DAY.',
  );
}

function perUserDayRefusal(owner: string, spent: number, credits: number, limit: number): CostRefusedError {
  return new CostRefusedError(
    'per_user_day',
    `Refused: you (${owner}) have spent or hold ${fmt(spent)} credits today (UTC); this call's ${fmt(credits)} would exceed your per-user daily budget of ${fmt(limit)} credits (GENPLAT_USER_BUDGETS / GENPLAT_USER_MAX_CREDITS_PER_DAY). Nothing was sent or charged.`,
    `Choose a cheaper option (you have ${fmt(Math.max(0, limit - spent))} credits left today), wait for the next UTC day, or ask the operator to raise your budget in GENPLAT_USER_BUDGETS.`,
  );
}

/**
 * Duplicate check: the newest record with this fingerprint (same owner) that may still start or run a job.
 * @throws whatever the job store throws when it cannot be read.
 */
export async function checkDuplicate(
  deps: GuardDeps,
  tool: string,
  fp: string,
  owner: string | undefined,
): Promise<CostRefusedError | undefined> {
  const dup = await findActiveDuplicate(deps, fp, owner);
  return dup ? duplicateRefusal(tool, dup) : undefined;
}

/**
 * The newest record with this fingerprint (same owner; any owner on stdio) that may still start or run a job.
 * A read before consent; `store.admit` applies the same rule (ACTIVE_SQL) again inside its transaction.
 */
async function findActiveDuplicate(deps: GuardDeps, fp: string, owner: string | undefined) {
  // Pending intents have status `submitted`, unknown ones `unknown` (record.ts newRecord / billing/settle.ts).
  const candidates = await deps.jobs.list({ owner, status: ['submitted', 'processing', 'unknown'] });
  return candidates.find((r) => r.fingerprint === fp && mayStillRun(r));
}

export function duplicateRefusal(tool: string, dup: JobRecord): CostRefusedError {
  return new CostRefusedError(
    'duplicate',
    `Refused as a duplicate: an identical ${tool} call is already on record (handle ${dup.handle}, status ${dup.status}, created ${dup.createdAt}${dup.requestId ? `, request id ${dup.requestId}` : ''}). Nothing was sent or charged.`,
    `Follow the earlier job with wait_for_jobs or get_job (handles ["${dup.handle}"])${dup.status === 'unknown' ? '; its submission outcome is unknown, so check the platform project list first' : ''}. Only if the user wants a second identical job, call again with allow_duplicate: true.`,
  );
}

/**
 * An estimate the ceilings can compare: NaN passes every `>` test and would slip past them, and a negative
 * figure would lower the day's spend. Neither is a price, so the call is refused unsent.
 */
function unusableEstimate(est: Estimate): CostRefusedError | undefined {
  if (Number.isFinite(est.credits) && est.credits >= 0) return undefined;
  return new CostRefusedError(
    'per_call',
    `Refused: the cost estimate (${String(est.credits)} credits; ${est.basis}) is not a usable price, so the ceilings cannot be applied. Nothing was sent or charged.`,
    'Check the inputs that drive the price (template, model, quote) and try again; report it if it repeats.',
  );
}

/**
 * The rules `store.admit` applies inside its transaction: the ceilings and duplicate rule again (consent can
 * take a while, and parallel calls read the same spend), the unsettled rule for allow_duplicate, and the
 * token's nonce. What `guardCall` checked earlier may be stale; these are what count.
 */
export function admitRules(
  deps: Pick<GuardDeps, 'config' | 'now'>,
  req: Pick<GuardRequest, 'owner' | 'allowDuplicate'>,
  decision: Extract<GuardDecision, { kind: 'allow' }>,
  exclusive?: AdmitRules['exclusive'],
): AdmitRules {
  const owner = req.owner;
  const userLimit = userDayLimit(deps.config, owner);
  return {
    maxCreditsPerCall: deps.config.maxCreditsPerCall,
    maxCreditsPerDay: deps.config.maxCreditsPerDay,
    dayStart: utcDayStart(deps.now()),
    user: owner !== undefined && userLimit !== undefined ? { owner, maxCreditsPerDay: userLimit } : undefined,
    duplicate: req.allowDuplicate ? undefined : { fingerprint: decision.fingerprint, owner },
    unsettled: req.allowDuplicate
      ? { fingerprint: decision.fingerprint, owner, except: decision.duplicateOf }
      : undefined,
    exclusive,
    nonce: decision.nonce,
  };
}

/** The error for a refusal from `store.admit` (nothing was written or sent); `exclusive` is the caller's. */
export function refusalError(
  tool: string,
  r: Exclude<AdmitRefusal, { reason: 'exclusive' | 'token_used' }>,
): GenplatError {
  switch (r.reason) {
    case 'per_call':
      return perCallRefusal(r.credits, r.limit);
    case 'per_day':
      return perDayRefusal(r.spent, r.credits, r.limit);
    case 'per_user_day':
      return perUserDayRefusal(r.owner, r.spent, r.credits, r.limit);
    case 'duplicate':
      return duplicateRefusal(tool, r.record);
    case 'unsettled':
      // An identical submission went pending or unknown after this call was consented to (a parallel call, or
      // one answered while a consent form was open): the user agreed without knowing a job may already exist.
      return new CostRefusedError(
        'duplicate',
        `Refused: ${unsettledWarning(r.record)} It appeared after this call was approved. Nothing was sent or charged.`,
        `Follow the earlier job with get_job (handle "${r.record.handle}") or check the platform project list; only if the user still wants a second job, call again with allow_duplicate: true and confirm it.`,
      );
  }
}

/**
 * The fingerprint, with a body too deep to canonicalise refused as bad input naming where (nothing sent).
 * @throws UserInputError naming the body path that is nested too deeply.
 */
function requestFingerprint(tool: string, request: GuardRequest['request']): string {
  try {
    return fingerprintOf(tool, request);
  } catch (err) {
    if (!(err instanceof BodyTooDeepError)) throw err;
    throw new UserInputError(err.path, `nested deeper than ${MAX_BODY_DEPTH} levels; flatten it`);
  }
}

/**
 * Runs ceilings → duplicate → consent for one billable call. On `allow`, the caller must still run
 * `recheckBeforeSend` and write the intent under one lock (see there).
 * @throws whatever the job store throws (ledger unreadable): the runtime turns it into an error, unsent.
 */
export async function guardCall(deps: GuardDeps, req: GuardRequest): Promise<GuardDecision> {
  const est = req.estimate;
  const ceiling = unusableEstimate(est) ?? (await checkCeilings(deps, est, req.owner));
  if (ceiling) return { kind: 'refuse', error: ceiling };

  const fp = requestFingerprint(req.tool, req.request);
  let earlier: JobRecord | undefined;
  if (!req.allowDuplicate) {
    const dup = await checkDuplicate(deps, req.tool, fp, req.owner);
    if (dup) return { kind: 'refuse', error: dup };
  } else {
    earlier = await findUnsettledDuplicate(deps, fp, req.owner);
  }
  const dupOf = earlier ? { duplicateOf: earlier.id } : {};

  const expected = {
    tool: req.tool,
    fingerprint: fp,
    credits: est.credits,
    owner: req.owner,
    allowDuplicate: req.allowDuplicate,
    ...dupOf,
  };
  // Policy first (it never covers a resend past an unknown outcome nor an unbounded quote), then a token the
  // agent quoted, then a form; the first carrier that answers decides.
  const carriers: ConsentCarrier[] = [
    policyCarrier(deps.config.confirm),
    tokenCarrier(req.token, () => deps.jobs.consentKey(), deps.now, {
      carrier: req.carrier ?? 'model',
      humanOnly: deps.config.consent === 'human',
      canAskPerson: req.elicit !== undefined || req.form !== undefined,
    }),
    ...(req.elicit ? [elicitationCarrier(req.elicit)] : []),
    ...(req.form ? [formRoundCarrier(req.form, () => deps.jobs.consentKey(), deps.now)] : []),
  ];
  const answer = await askConsent(carriers, {
    expected,
    estimate: est,
    message: consentMessage(req.tool, est, req.summary, earlier, req.request.body),
    earlier,
  });
  if (answer.kind === 'granted') {
    return {
      kind: 'allow',
      consent: answer.path,
      fingerprint: fp,
      ...dupOf,
      ...(answer.nonce ? { nonce: answer.nonce } : {}),
    };
  }
  if (answer.kind === 'declined') {
    return {
      kind: 'answer',
      envelope: {
        status: 'declined',
        kind: req.kind,
        estimate: est,
        reason: `Not confirmed: ${answer.reason}.`,
        next_step: 'No charge made and no job started. Ask the user what to change before trying again.',
      },
    };
  }
  if (answer.kind === 'ask_form') {
    const envelope = await confirmationRequired(deps, req, expected, earlier, undefined);
    return { kind: 'ask', message: answer.message, envelope };
  }
  const reason = answer.kind === 'fallback' ? answer.reason : earlier ? unsettledWarning(earlier) : undefined;
  return { kind: 'answer', envelope: await confirmationRequired(deps, req, expected, earlier, reason) };
}

/** The `confirmation_required` answer: a fresh token bound to `expected`, the cost and what it makes. */
export async function confirmationRequired(
  deps: GuardDeps,
  req: Pick<GuardRequest, 'tool' | 'kind' | 'estimate' | 'summary'>,
  expected: Parameters<typeof issueToken>[1],
  earlier: JobRecord | undefined,
  reason: string | undefined,
): Promise<JobEnvelope> {
  const est = req.estimate;
  const warning = earlier ? unsettledWarning(earlier) : undefined;
  const { token, expiresAt } = issueToken(
    await deps.jobs.consentKey(),
    expected,
    deps.now(),
    deps.tokenTtlMs ?? TOKEN_TTL_MS,
  );
  return {
    status: 'confirmation_required',
    kind: req.kind,
    estimate: est,
    confirmation_token: token,
    expires_at: expiresAt.toISOString(),
    ...(reason ? { reason } : {}),
    next_step: `No charge made.${warning ? ` ${warning} Tell the user this, naming the request id.` : ''} Show the user the cost (${priceLine(est)}) and what will be made (${req.summary}); ${
      deps.config.consent === 'human'
        ? `the user confirms by clicking Confirm on the card in the job viewer (single use, valid until ${expiresAt.toISOString()}); this server does not accept the token from you (GENPLAT_CONSENT=human). If no card is shown, the host cannot take a click: the operator must unset GENPLAT_CONSENT or use a host that renders MCP Apps or elicitation forms.`
        : `if they agree, call ${req.tool} again with the same arguments plus confirmation_token (single use, valid until ${expiresAt.toISOString()}).`
    }`,
  };
}
