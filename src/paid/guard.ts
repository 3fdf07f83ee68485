/**
 * The cost guard (design.md section 4). Order: ceilings → duplicate check → consent; the runtime has
 * already validated and estimated, and sends + writes the ledger only when this says `allow`.
 *
 * Ceilings and the duplicate check come first on purpose: they refuse whatever the consent, so a token or a
 * lenient policy can never lift them, and the user is never asked to agree to something that will be refused.
 */

import type { Config } from '../config.js';
import { UserInputError } from '../errors.js';
import type { Estimate, JobEnvelope } from '../jobs/envelope.js';
import type { JobKind } from '../jobs/handle.js';
import type { ConsentPath, JobRecord, JobStore } from '../jobs/store.js';
import type { AdmitRefusal, AdmitRules } from '../store/types.js';
import { metrics } from '../telemetry/metrics.js';
import { evaluateAdmission, evaluateCampaignAdmission } from './admission.js';
import { budgetPerson, budgetRules, personDayBudget } from './budgets.js';
import { consentFormText, tokenFlowSummary } from './chat-summary.js';
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
} from './consent.js';
import { consentCard } from './consent-card.js';
import { BodyTooDeepError, fingerprint01, fingerprint as fingerprintOf, MAX_BODY_DEPTH } from './fingerprint.js';
import { issueToken, TOKEN_TTL_MS } from './token.js';
import {
  CostRefusedError,
  confirmationNextStep,
  consentMessage,
  declinedWords,
  duplicateRefusal,
  type PrecheckRefusal,
  QUOTE_ONLY_REASON,
  quoteOnlyNextStep,
  refusalError,
} from './wording.js';

export type { ElicitOutcome, FormRound };
export { CostRefusedError, consentMessage, duplicateRefusal, refusalError, unsettledWarning };

export interface GuardRequest {
  tool: string;
  kind: JobKind;
  /** The tool's own arguments (guard arguments removed): only for matching 0.1 records (`fingerprint01`). */
  input?: Record<string, unknown> | undefined;
  /** The exact request `run()` will send (route and body): consent and the duplicate rule bind to it. */
  request: { route: string; body: unknown };
  estimate: Estimate;
  /** What will be made, key inputs (the spec's `billable.summary`). */
  summary: string;
  owner: string | undefined;
  /**
   * The caller's teams from verified identity (people file groups, OAuth groups claim; src/people/directory.ts);
   * undefined on stdio (and none). Their budgets are checked and each admitted record is tagged with them.
   */
  teams?: readonly string[] | undefined;
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
  /** A campaign (issue 21): every item's quote; `estimate` is their total. The campaign rule then applies. */
  itemCredits?: readonly number[] | undefined;
  /**
   * What the caller's credential may do (issue 30 item 6). Anything but `spend` gets the quote alone (`quoteOnly`):
   * no carrier is asked, so no token, form answer, elicitation or auto-approve policy can admit the call. The
   * pipeline always passes it; undefined only in tests that build a request by hand (the operator's process: spend).
   */
  access?: 'read' | 'quote' | 'spend' | undefined;
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
      /** The 0.1 form of the same call (`fingerprint01`): imported 0.1 records are matched by it. */
      legacyFingerprint?: string;
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

/** Start of the current UTC day: the per-day ceiling's window. */
export function utcDayStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * The pre-check before consent: the admission rule (`evaluateAdmission`, the one `store.admit` applies again
 * under its lock) over plain reads, so a person is never asked to approve a call that will be refused. Only
 * the ceilings and the duplicate rule apply here (no nonce yet; the exclusive key after `beforeAdmit`).
 * With `allow_duplicate`, also returns the identical unsettled record the person must be warned about.
 * @throws whatever the job store throws when it cannot be read (the runtime refuses the send).
 */
export async function precheck(
  deps: GuardDeps,
  credits: number,
  call: {
    owner: string | undefined;
    teams?: readonly string[] | undefined;
    allowDuplicate: boolean;
    fingerprint: string;
    legacyFingerprint?: string;
  },
  itemCredits?: readonly number[],
): Promise<{ refusal: AdmitRefusal | undefined; earlier: JobRecord | undefined }> {
  // The unsettled rule is admit's alone: before consent, an unsettled identical record is what the person is
  // warned about (and consents past), not a refusal.
  const rules = { ...admitRules(deps, call, call), unsettled: undefined };
  const warnAbout = call.allowDuplicate
    ? { fingerprint: call.fingerprint, legacyFingerprint: call.legacyFingerprint, owner: call.owner }
    : undefined;
  const facts = await deps.jobs.readAdmissionFacts({ ...rules, unsettled: warnAbout });
  const refusal = itemCredits
    ? evaluateCampaignAdmission(itemCredits, facts, rules)
    : evaluateAdmission(credits, facts, rules);
  return { refusal, earlier: warnAbout ? facts.unsettled : undefined };
}

/**
 * A campaign with `allow_duplicate` (several takes on purpose): its items are not checked against active
 * identical jobs, but one identical to a job whose outcome is still unknown (or whose POST is in flight) would be
 * a possible double charge the person never saw named. A single call warns and asks (consent.ts); a campaign's
 * one consent cannot carry a warning per item, so it fails closed: the first such item is named and nothing is
 * quoted (review finding of issue 21). Plain reads, before consent; `admitBundle` checks again under its lock.
 * @returns the first item identical to an unsettled job, with that job, or undefined.
 */
export async function campaignItemUnsettled(
  deps: Pick<GuardDeps, 'config' | 'jobs' | 'now'>,
  itemFingerprints: readonly string[],
  owner: string | undefined,
): Promise<{ item: number; record: JobRecord } | undefined> {
  const base = admitRules(deps, { owner, allowDuplicate: true }, { fingerprint: '' });
  for (const [item, fingerprint] of itemFingerprints.entries()) {
    const rules = { ...base, user: undefined, unsettled: { fingerprint, owner } };
    const { unsettled } = await deps.jobs.readAdmissionFacts(rules);
    if (unsettled) return { item, record: unsettled };
  }
  return undefined;
}

/**
 * Ceilings alone (per call, per UTC day account-wide, the caller's own budget), through the admission rule.
 * @throws whatever the job store throws when it cannot be read.
 */
export async function checkCeilings(
  deps: GuardDeps,
  est: Estimate,
  owner?: string | undefined,
): Promise<CostRefusedError | undefined> {
  const rules = admitRules(deps, { owner, allowDuplicate: true }, { fingerprint: '' });
  const facts = await deps.jobs.readAdmissionFacts({ ...rules, unsettled: undefined });
  const refusal = evaluateAdmission(est.credits, facts, { ...rules, unsettled: undefined });
  return refusal ? refusalError('', refusal as PrecheckRefusal) : undefined;
}

/**
 * The rules `store.admit` applies inside its transaction: the ceilings and duplicate rule again (consent can
 * take a while, and parallel calls read the same spend), the unsettled rule for allow_duplicate, and the
 * token's nonce. What `guardCall` checked earlier may be stale; these are what count.
 */
export function admitRules(
  deps: Pick<GuardDeps, 'config' | 'now'>,
  req: Pick<GuardRequest, 'owner' | 'teams' | 'allowDuplicate'>,
  decision: Pick<
    Extract<GuardDecision, { kind: 'allow' }>,
    'fingerprint' | 'legacyFingerprint' | 'duplicateOf' | 'nonce'
  >,
  exclusive?: AdmitRules['exclusive'],
): AdmitRules {
  const owner = req.owner;
  const now = deps.now();
  const budgets = budgetRules(deps.config, req, now);
  // One person asking under two ids (the people file's `also`) is one requester to the day ceiling, the budgets
  // and the duplicate rules alike.
  const person = owner === undefined ? undefined : budgetPerson(deps.config, owner);
  const owners = person && person.ids.length > 1 ? { owners: person.ids } : {};
  const day = personDayBudget(deps.config, owner);
  return {
    maxCreditsPerCall: deps.config.maxCreditsPerCall,
    maxCreditsPerDay: deps.config.maxCreditsPerDay,
    dayStart: utcDayStart(now),
    // The person's day ceiling: named by their entry's id, counted over all their ids.
    user: person && day ? { owner: person.key, maxCreditsPerDay: day.limit, ...owners, where: day.source } : undefined,
    ...(budgets.length > 0 ? { budgets } : {}),
    ...(req.teams?.length ? { teams: [...req.teams] } : {}),
    duplicate: req.allowDuplicate
      ? undefined
      : { fingerprint: decision.fingerprint, legacyFingerprint: decision.legacyFingerprint, owner, ...owners },
    unsettled: req.allowDuplicate
      ? {
          fingerprint: decision.fingerprint,
          legacyFingerprint: decision.legacyFingerprint,
          owner,
          except: decision.duplicateOf,
          ...owners,
        }
      : undefined,
    exclusive,
    nonce: decision.nonce,
  };
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
  const fp = requestFingerprint(req.tool, req.request);
  const legacy = req.input ? { legacyFingerprint: fingerprint01(req.tool, req.input) } : {};
  const { refusal, earlier } = await precheck(
    deps,
    est.credits,
    { ...req, fingerprint: fp, ...legacy },
    req.itemCredits,
  );
  if (refusal) metrics.admissionRefused(req.tool, refusal.reason);
  if (refusal) return { kind: 'refuse', error: refusalError(req.tool, refusal as PrecheckRefusal) };
  const dupOf = earlier ? { duplicateOf: earlier.id } : {};

  const expected = {
    tool: req.tool,
    fingerprint: fp,
    credits: est.credits,
    owner: req.owner,
    allowDuplicate: req.allowDuplicate,
    ...dupOf,
  };
  // A credential that may quote but not spend: the quote, and no carrier at all. Before the carriers, so nothing
  // this caller sends (a token, a form's answer) is even read, and the policy cannot admit on its behalf.
  if (req.access !== undefined && req.access !== 'spend') {
    return { kind: 'answer', envelope: quoteOnly(req, fp, earlier) };
  }
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
    // The card as text; a campaign's or long request's opens with its chat summary (chat-summary.ts).
    message: consentFormText(
      consentCard({ tool: req.tool, body: req.request.body, estimate: est, summary: req.summary }),
      { warning: earlier ? unsettledWarning(earlier) : undefined, fingerprint: fp },
    ),
    earlier,
  });
  if (answer.kind === 'granted') {
    return {
      kind: 'allow',
      consent: answer.path,
      fingerprint: fp,
      ...legacy,
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
        ...declinedWords(answer.reason),
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

/**
 * The answer to a quote-only credential: `confirmation_required` WITHOUT a confirmation token (a token in this
 * caller's hands would be consent it may not give), the cost, the chat summary and the request's fingerprint, and
 * how a person who may spend starts it: the same call with their own credential, which quotes the same fingerprint.
 */
function quoteOnly(
  req: Pick<GuardRequest, 'tool' | 'kind' | 'estimate' | 'summary' | 'request'>,
  fingerprint: string,
  earlier: JobRecord | undefined,
): JobEnvelope {
  const card = consentCard({ tool: req.tool, body: req.request.body, estimate: req.estimate, summary: req.summary });
  return {
    status: 'confirmation_required',
    kind: req.kind,
    estimate: req.estimate,
    reason: QUOTE_ONLY_REASON,
    next_step: quoteOnlyNextStep({
      tool: req.tool,
      estimate: req.estimate,
      summary: req.summary,
      fingerprint,
      warning: earlier ? unsettledWarning(earlier) : undefined,
      chatSummary: tokenFlowSummary(card, fingerprint),
    }),
  };
}

/** The `confirmation_required` answer: a fresh token bound to `expected`, the cost and what it makes. */
export async function confirmationRequired(
  deps: GuardDeps,
  req: Pick<GuardRequest, 'tool' | 'kind' | 'estimate' | 'summary'> & Partial<Pick<GuardRequest, 'request'>>,
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
    next_step: confirmationNextStep({
      tool: req.tool,
      estimate: est,
      summary: req.summary,
      expiresAt,
      humanOnly: deps.config.consent === 'human',
      warning,
      // Same card, same fingerprint as the token: a campaign's or long request's summary for the chat.
      chatSummary: req.request
        ? tokenFlowSummary(
            consentCard({ tool: req.tool, body: req.request.body, estimate: est, summary: req.summary }),
            expected.fingerprint,
          )
        : undefined,
    }),
  };
}
