/**
 * Consent strategies behind one interface. A paid call asks its carriers in order (policy, token, form);
 * the first that grants, declines or gives up decides, and when none applies the user gets a confirmation
 * token to quote. The form itself is SDK work: the runtime injects `elicit`, so this module (and all of
 * `src/paid`) stays free of the MCP SDK.
 *
 * A token is only VERIFIED here (pure HMAC, `paid/token.ts`); its nonce is consumed inside `store.admit`,
 * in the same transaction that writes the intent, so a token is redeemed once across every process and
 * instance, and a call refused by a ceiling does not use it up.
 */
import type { Config } from '../config.js';
import type { Estimate } from '../jobs/envelope.js';
import type { ConsentPath, JobRecord } from '../jobs/store.js';
import { type Expected, verifyToken } from './token.js';

/**
 * What asking the user through an elicitation form gave. `dismissed`: the client answered `cancel`, i.e. the form
 * was closed without a choice; headless hosts (`claude -p`) answer every form so without asking anyone, so it is
 * no refusal: the token flow follows, as for a form nobody answered (`failed`). Only `decline` is a "no".
 */
export type ElicitOutcome =
  | { outcome: 'accepted' }
  | { outcome: 'declined'; reason: string }
  | { outcome: 'dismissed' }
  | { outcome: 'failed'; reason: string };

/** The fallback reason after a dismissed form (model-facing: short). */
export const DISMISSED_REASON =
  'The confirmation form was dismissed without an answer (cancel), so nobody confirmed or refused; a confirmation_token is attached.';

export interface ConsentQuestion {
  /** What a token must match (tool, fingerprint, credits, owner, allow_duplicate, dupOf). */
  expected: Expected;
  estimate: Estimate;
  /** The prompt: cost, what will be made, and the resend warning when there is one. */
  message: string;
  /** An identical earlier submission of unknown outcome this call would resend past. */
  earlier: JobRecord | undefined;
}

export type ConsentAnswer =
  /** This carrier does not apply (no token given, policy does not cover it): ask the next one. */
  | { kind: 'abstain' }
  /** `nonce`: a token's single-use nonce, consumed by `store.admit`. */
  | { kind: 'granted'; path: ConsentPath; nonce?: { value: string; expiresAt: Date } }
  /** The user said no: a normal answer, nothing charged. */
  | { kind: 'declined'; reason: string }
  /** Consent could not be obtained this way: answer with a fresh token, saying why. */
  | { kind: 'fallback'; reason: string }
  /** Ask the person with a form in a second round trip (2026-07-28 `input_required`); nothing charged yet. */
  | { kind: 'ask_form'; message: string };

export interface ConsentCarrier {
  ask(q: ConsentQuestion): Promise<ConsentAnswer>;
}

/**
 * GENPLAT_CONFIRM. Never for an unbounded estimate (its figure is ours, not the platform's) nor for a resend
 * past an unknown outcome (may be a second charge): only a person's answer or a token quoted with the warning.
 */
export function policyCarrier(policy: Config['confirm']): ConsentCarrier {
  return {
    async ask({ estimate, earlier }) {
      if (earlier || !estimate.bounded) return { kind: 'abstain' };
      const ok = policy.mode === 'never' || (policy.mode === 'above' && estimate.credits <= policy.credits);
      return ok ? { kind: 'granted', path: 'policy' } : { kind: 'abstain' };
    },
  };
}

/**
 * Who presented a token: `human` = the App's Confirm click (an app-only tool the model cannot call); `model` =
 * the model's own tool call. Under GENPLAT_CONSENT=human only a click (or a form) is the user's consent.
 */
export interface TokenPresenter {
  carrier: 'model' | 'human';
  humanOnly: boolean;
  /** A form can ask the person instead: a model-presented token then defers to it. */
  canAskPerson: boolean;
}

/** A `confirmation_token` argument: verified against the consent key shared through the store. */
export function tokenCarrier(
  token: string | undefined,
  consentKey: () => Promise<Buffer>,
  now: () => number,
  presenter: TokenPresenter = { carrier: 'model', humanOnly: false, canAskPerson: false },
): ConsentCarrier {
  return {
    async ask({ expected, earlier }) {
      if (token === undefined || token.trim() === '') return { kind: 'abstain' };
      const warning = earlier ? ` ${unsettledWarning(earlier)}` : '';
      if (presenter.humanOnly && presenter.carrier !== 'human') {
        // Not verified and not consumed: the same token stays valid for the person's click.
        if (presenter.canAskPerson) return { kind: 'abstain' };
        return {
          kind: 'fallback',
          reason: `GENPLAT_CONSENT=human: a confirmation_token sent by the model does not confirm a paid call; only the user's Confirm click in the job viewer App or an answered confirmation form does.${warning}`,
        };
      }
      const check = verifyToken(await consentKey(), token, expected, now());
      if (check.ok) {
        return {
          kind: 'granted',
          path: presenter.carrier === 'human' ? 'click' : 'token',
          nonce: { value: check.claims.nonce, expiresAt: new Date(check.claims.exp) },
        };
      }
      return {
        kind: 'fallback',
        reason: `The confirmation_token was refused: ${check.reason}. A fresh one is attached.${warning}`,
      };
    },
  };
}

/** An elicitation form; `elicit` is the SDK call, injected by the runtime. */
export function elicitationCarrier(elicit: (message: string) => Promise<ElicitOutcome>): ConsentCarrier {
  return {
    async ask({ message, earlier }) {
      const asked = await elicit(message);
      if (asked.outcome === 'accepted') return { kind: 'granted', path: 'elicitation' };
      if (asked.outcome === 'declined') return { kind: 'declined', reason: asked.reason };
      const warning = earlier ? ` ${unsettledWarning(earlier)}` : '';
      if (asked.outcome === 'dismissed') return { kind: 'fallback', reason: `${DISMISSED_REASON}${warning}` };
      return {
        kind: 'fallback',
        reason: `The confirmation form could not be used (${asked.reason}); confirm with a token instead.${warning}`,
      };
    },
  };
}

/**
 * The confirmation form of a 2026-07-28 client, asked as a multi round-trip request: the first round answers
 * `ask_form` (the runtime returns `input_required` carrying a fresh confirmation token inside a signed
 * `requestState`); the client's retry carries the person's answer and that token back. The token does the
 * binding (tool, exact request body, quote, caller, expiry) and its nonce is consumed by `store.admit`, so an
 * answered form starts at most one job however often the retry is replayed, on any instance.
 */
export type FormRound =
  | { round: 'ask' }
  | { round: 'answered'; accepted: true; token: string }
  | { round: 'answered'; accepted: false; reason: string }
  /** The client answered `cancel`: dismissed, not refused (see `ElicitOutcome`). */
  | { round: 'answered'; accepted: false; dismissed: true };

export function formRoundCarrier(
  form: FormRound,
  consentKey: () => Promise<Buffer>,
  now: () => number,
): ConsentCarrier {
  return {
    async ask({ expected, message, earlier }) {
      if (form.round === 'ask') return { kind: 'ask_form', message };
      const warning = earlier ? ` ${unsettledWarning(earlier)}` : '';
      if (!form.accepted && 'dismissed' in form) return { kind: 'fallback', reason: `${DISMISSED_REASON}${warning}` };
      if (!form.accepted) return { kind: 'declined', reason: form.reason };
      const check = verifyToken(await consentKey(), form.token, expected, now());
      if (check.ok) {
        return {
          kind: 'granted',
          path: 'elicitation',
          nonce: { value: check.claims.nonce, expiresAt: new Date(check.claims.exp) },
        };
      }
      return {
        kind: 'fallback',
        reason: `The confirmation form's answer no longer matches this call (${check.reason}). A fresh confirmation_token is attached.${warning}`,
      };
    },
  };
}

/** Asks in order; the first answer that is not `abstain` decides. */
export async function askConsent(carriers: ConsentCarrier[], q: ConsentQuestion): Promise<ConsentAnswer> {
  for (const c of carriers) {
    const a = await c.ask(q);
    if (a.kind !== 'abstain') return a;
  }
  return { kind: 'abstain' };
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
