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
import type { ConsentPath, JobStore } from '../jobs/store.js';
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
  | { kind: 'allow'; consent: ConsentPath; fingerprint: string }
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

/** The consent prompt: cost in both units, what will be made, how the figure was computed. */
export function consentMessage(tool: string, est: Estimate, summary: string): string {
  return `${tool} will spend ${fmt(est.credits)} credits (${apiUnits(est)}): ${summary}. Estimate: ${est.basis}. Confirm to start the job.`;
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
  req: Pick<GuardRequest, 'tool' | 'estimate' | 'owner' | 'allowDuplicate'>,
  fp: string,
): Promise<CostRefusedError | undefined> {
  const ceiling = unusableEstimate(req.estimate) ?? (await checkCeilings(deps, req.estimate));
  if (ceiling || req.allowDuplicate) return ceiling;
  return checkDuplicate(deps, req.tool, fp, req.owner);
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
  if (!req.allowDuplicate) {
    const dup = await checkDuplicate(deps, req.tool, fp, req.owner);
    if (dup) return { kind: 'refuse', error: dup };
  }

  const policy = deps.config.confirm;
  if (policy.mode === 'never') return { kind: 'allow', consent: 'policy', fingerprint: fp };
  if (policy.mode === 'above' && est.credits <= policy.credits) {
    return { kind: 'allow', consent: 'policy', fingerprint: fp };
  }

  const expected = {
    tool: req.tool,
    fingerprint: fp,
    credits: est.credits,
    owner: req.owner,
    allowDuplicate: req.allowDuplicate,
  };
  let reason: string | undefined;
  if (req.token !== undefined && req.token.trim() !== '') {
    const check = await redeemToken(deps.jobs, req.token, expected, deps.now());
    if (check.ok) return { kind: 'allow', consent: 'token', fingerprint: fp };
    reason = `The confirmation_token was refused: ${check.reason}. A fresh one is attached.`;
  } else if (req.elicit) {
    const asked = await req.elicit(consentMessage(req.tool, est, req.summary));
    if (asked.outcome === 'accepted') return { kind: 'allow', consent: 'elicitation', fingerprint: fp };
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
    reason = `The confirmation form could not be used (${asked.reason}); confirm with a token instead.`;
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
      next_step: `No charge made. Show the user the cost (${fmt(est.credits)} credits = ${apiUnits(est)}) and what will be made (${req.summary}); if they agree, call ${req.tool} again with the same arguments plus confirmation_token (single use, valid until ${expiresAt.toISOString()}).`,
    },
  };
}
