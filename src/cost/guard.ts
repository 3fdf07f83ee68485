/**
 * The cost guard (design.md section 4). Order: ceilings → duplicate check → consent; the runtime has
 * already validated and estimated, and sends + writes the ledger only when this says `allow`.
 *
 * Ceilings and the duplicate check come first on purpose: they refuse whatever the consent, so a token or a
 * lenient policy can never lift them, and the user is never asked to agree to something that will be refused.
 */
import type { Config } from '../config.js';
import { GenplatError, UserInputError } from '../errors.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import type { ConsentPath, JobRecord, JobStore } from '../jobs/store.js';
import { BodyTooDeepError, fingerprint as fingerprintOf, MAX_BODY_DEPTH } from './fingerprint.js';
import { issueToken, redeemToken, TOKEN_TTL_MS } from './token.js';

/** The guard refused the call: nothing was sent, nothing charged. */
export class CostRefusedError extends GenplatError {
  readonly refusal: 'per_call' | 'per_day' | 'duplicate';
  constructor(refusal: CostRefusedError['refusal'], message: string, nextStep: string) {
    super(message, nextStep);
    this.refusal = refusal;
  }
}

/** What asking the user through an elicitation form gave. */
export type ElicitOutcome =
  | { outcome: 'accepted' }
  | { outcome: 'declined'; reason: string }
  | { outcome: 'failed'; reason: string };

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
  /** Asks the user with a form; undefined when the client cannot be asked (no capability, skip-listed, off). */
  elicit: ((message: string) => Promise<ElicitOutcome>) | undefined;
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
  | { kind: 'allow'; consent: ConsentPath; fingerprint: string; duplicateOf?: string }
  /** `confirmation_required` or `declined`: a normal (non-error) answer; nothing charged. */
  | { kind: 'answer'; envelope: JobEnvelope }
  | { kind: 'refuse'; error: CostRefusedError };

const fmt = (n: number) => n.toLocaleString('en-US');
const apiUnits = (e: Estimate) => `${e.api_units} API credit unit${e.api_units === 1 ? '' : 's'}`;

/** Start of the current UTC day: the per-day ceiling's window. */
export function utcDayStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * The warning for resending past an earlier identical submission whose outcome is not known: the platform may
 * have accepted (and charged) it, so the user must know this can be a second charge for the same job.
 */
export function unsettledWarning(earlier: JobRecord): string {
  const id = earlier.requestId
    ? `request id ${earlier.requestId}`
    : 'no request id (no answer was received; the server may have stopped while sending it)';
  return `Warning: an identical earlier ${earlier.tool} request (${id}, ledger handle ${earlier.handle}, sent ${earlier.createdAt}) has an unknown outcome: that job may already exist on the platform and be charged, and confirming starts and charges a second one.`;
}

/** The consent prompt: cost in both units, what will be made, how the figure was computed, and any resend warning. */
export function consentMessage(tool: string, est: Estimate, summary: string, earlier?: JobRecord): string {
  const warning = earlier ? `${unsettledWarning(earlier)} ` : '';
  if (!est.bounded) {
    return `${warning}${tool}: ${summary}. The platform publishes no price for this call; it is quoted at up to ${fmt(est.credits)} credits (${apiUnits(est)}), a figure that is not the platform's: ${est.basis}. The real charge is known only after the job starts. Confirm to start the job.`;
  }
  return `${warning}${tool} will spend at most ${fmt(est.credits)} credits (${apiUnits(est)}): ${summary}. Estimate: ${est.basis}. Confirm to start the job.`;
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
 * Whether the policy alone may consent. Never for an unbounded estimate: its figure is ours (an operator table
 * or the ceiling), not the platform's, so a threshold or `never` cannot stand for the user's consent to it.
 */
function policyConsents(policy: GuardDeps['config']['confirm'], est: Estimate): boolean {
  if (!est.bounded) return false;
  if (policy.mode === 'never') return true;
  return policy.mode === 'above' && est.credits <= policy.credits;
}

/**
 * Ceilings: per call, then per UTC day (spend from the ledger, including held and unknown submissions).
 * @throws whatever the job store throws when it cannot be read (the runtime refuses the send).
 */
export async function checkCeilings(deps: GuardDeps, est: Estimate): Promise<CostRefusedError | undefined> {
  const { maxCreditsPerCall, maxCreditsPerDay } = deps.config;
  if (est.credits > maxCreditsPerCall) {
    return new CostRefusedError(
      'per_call',
      `Refused: this call is estimated at ${fmt(est.credits)} credits, above the per-call ceiling of ${fmt(maxCreditsPerCall)} credits (GENPLAT_MAX_CREDITS_PER_CALL). Nothing was sent or charged.`,
      'Choose a cheaper option, or ask the operator to raise GENPLAT_MAX_CREDITS_PER_CALL.',
    );
  }
  // The per-day ceiling protects the one platform account behind the key, so over HTTP it counts every
  // caller's spend, not only this caller's: N callers must not be able to spend N times the ceiling.
  const spent = await deps.jobs.spendSince(utcDayStart(deps.now()));
  if (spent + est.credits > maxCreditsPerDay) {
    return new CostRefusedError(
      'per_day',
      `Refused: ${fmt(spent)} credits already spent or held today (UTC) on this account by this server; this call's ${fmt(est.credits)} would exceed the per-day ceiling of ${fmt(maxCreditsPerDay)} credits (GENPLAT_MAX_CREDITS_PER_DAY). Nothing was sent or charged.`,
      'Wait for the next UTC day, or ask the operator to raise GENPLAT_MAX_CREDITS_PER_DAY.',
    );
  }
  return undefined;
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
  const dup = await deps.jobs.findActiveDuplicate(fp, owner);
  if (!dup) return undefined;
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
 * The checks that depend on the ledger (ceilings, then duplicates), run again just before the intent is
 * written: consent can take a while (a form the user answers later), and parallel calls read the same
 * ledger, so what `guardCall` saw may be stale. The caller runs this and `recordIntent` under one lock.
 * @throws whatever the job store throws (ledger unreadable): the runtime turns it into an error, unsent.
 */
export async function recheckBeforeSend(
  deps: GuardDeps,
  req: Pick<GuardRequest, 'tool' | 'estimate' | 'owner' | 'allowDuplicate'> & { duplicateOf?: string | undefined },
  fp: string,
): Promise<CostRefusedError | undefined> {
  const ceiling = unusableEstimate(req.estimate) ?? (await checkCeilings(deps, req.estimate));
  if (ceiling) return ceiling;
  if (!req.allowDuplicate) return checkDuplicate(deps, req.tool, fp, req.owner);
  // An identical submission went pending or unknown after this call was consented to (a parallel call, or one
  // answered while a consent form was open): the user agreed without knowing a job may already exist.
  const earlier = await findUnsettledDuplicate(deps, fp, req.owner);
  if (!earlier || earlier.id === req.duplicateOf) return undefined;
  return new CostRefusedError(
    'duplicate',
    `Refused: ${unsettledWarning(earlier)} It appeared after this call was approved. Nothing was sent or charged.`,
    `Follow the earlier job with get_job (handle "${earlier.handle}") or check the platform project list; only if the user still wants a second job, call again with allow_duplicate: true and confirm it.`,
  );
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
  const ceiling = unusableEstimate(est) ?? (await checkCeilings(deps, est));
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

  // A resend past an unknown/pending identical submission may be a second charge for the same job, and an
  // unbounded quote is our figure, not the platform's: neither is ever auto-approved, whatever GENPLAT_CONFIRM
  // says; only a person's answer or a token quoted with the warning.
  if (!earlier && policyConsents(deps.config.confirm, est)) {
    return { kind: 'allow', consent: 'policy', fingerprint: fp };
  }

  const expected = {
    tool: req.tool,
    fingerprint: fp,
    credits: est.credits,
    owner: req.owner,
    allowDuplicate: req.allowDuplicate,
    ...dupOf,
  };
  const warning = earlier ? unsettledWarning(earlier) : undefined;
  let reason: string | undefined = warning;
  const humanOnly = deps.config.consent === 'human' && req.carrier !== 'human';
  if (humanOnly && req.token !== undefined && req.token.trim() !== '' && !req.elicit) {
    // Not redeemed (it stays unused): under GENPLAT_CONSENT=human the model's word is not the user's consent.
    reason = `GENPLAT_CONSENT=human: a confirmation_token sent by the model does not confirm a paid call; only the user's Confirm click in the job viewer App or an answered confirmation form does.${warning ? ` ${warning}` : ''}`;
  } else if (req.token !== undefined && req.token.trim() !== '' && !(humanOnly && req.elicit)) {
    const check = await redeemToken(deps.jobs, req.token, expected, deps.now());
    if (check.ok) {
      return { kind: 'allow', consent: req.carrier === 'human' ? 'click' : 'token', fingerprint: fp, ...dupOf };
    }
    reason = `The confirmation_token was refused: ${check.reason}. A fresh one is attached.${warning ? ` ${warning}` : ''}`;
  } else if (req.elicit) {
    const asked = await req.elicit(consentMessage(req.tool, est, req.summary, earlier));
    if (asked.outcome === 'accepted') return { kind: 'allow', consent: 'elicitation', fingerprint: fp, ...dupOf };
    if (asked.outcome === 'declined') {
      return {
        kind: 'answer',
        envelope: {
          status: 'declined',
          kind: req.kind,
          estimate: est,
          reason: `Not confirmed: ${asked.reason}.`,
          next_step: 'No charge made and no job started. Ask the user what to change before trying again.',
        },
      };
    }
    reason = `The confirmation form could not be used (${asked.reason}); confirm with a token instead.${warning ? ` ${warning}` : ''}`;
  }

  const { token, expiresAt } = issueToken(
    await deps.jobs.secret(),
    expected,
    deps.now(),
    deps.tokenTtlMs ?? TOKEN_TTL_MS,
  );
  return {
    kind: 'answer',
    envelope: {
      status: 'confirmation_required',
      kind: req.kind,
      estimate: est,
      confirmation_token: token,
      expires_at: expiresAt.toISOString(),
      ...(reason ? { reason } : {}),
      next_step: `No charge made.${warning ? ` ${warning} Tell the user this, naming the request id.` : ''} Show the user ${
        est.bounded
          ? `the cost (at most ${fmt(est.credits)} credits = ${apiUnits(est)})`
          : `that the platform publishes no price for this call and that it is quoted at up to ${fmt(est.credits)} credits (${apiUnits(est)}) from ${/operator price table/.test(est.basis) ? "the operator's price table" : 'the per-call ceiling'}, not from the platform`
      } and what will be made (${req.summary}); ${
        deps.config.consent === 'human'
          ? `the user confirms by clicking Confirm on the card in the job viewer (single use, valid until ${expiresAt.toISOString()}); this server does not accept the token from you (GENPLAT_CONSENT=human). If no card is shown, the host cannot take a click: the operator must unset GENPLAT_CONSENT or use a host that renders MCP Apps or elicitation forms.`
          : `if they agree, call ${req.tool} again with the same arguments plus confirmation_token (single use, valid until ${expiresAt.toISOString()}).`
      }`,
    },
  };
}
