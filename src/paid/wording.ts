/**
 * Every sentence the paid path says to the agent or the person (issue 18 item 6: one place for agent-facing
 * wording): refusals by the admission rule, the consent prompt, the confirmation and declined answers. Callers
 * pass figures and records; nothing here reads config or the store.
 */
import { GenplatError, UserInputError } from '../errors.js';
import type { Estimate } from '../jobs/envelope.js';
import type { JobRecord } from '../jobs/store.js';
import type { AdmitRefusal, BudgetPeriod } from '../store/types.js';
import { unsettledWarning } from './consent.js';
import { cardText, consentCard, priceLine } from './consent-card.js';
import { nextPeriodStart } from './periods.js';

/** The guard refused the call: nothing was sent, nothing charged. */
export class CostRefusedError extends GenplatError {
  readonly refusal: 'per_call' | 'per_day' | 'per_user_day' | 'budget' | 'duplicate';
  constructor(refusal: CostRefusedError['refusal'], message: string, nextStep: string) {
    super(message, nextStep);
    this.refusal = refusal;
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The consent form's message: the consent card as text (consent-card.ts: cost and whether it is proven, how it
 * was computed, what will be made, every field of `body` in full), after any resend warning.
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

/** Refusals the pre-check can give (no exclusive key and no nonce there). */
export type PrecheckRefusal = Exclude<AdmitRefusal, { reason: 'exclusive' | 'token_used' }>;

/** NaN or a negative figure is not a price: the ceilings cannot be applied to it. */
function unusableEstimateRefusal(credits: number): CostRefusedError {
  return new CostRefusedError(
    'per_call',
    `Refused: the cost estimate (${String(credits)} credits) is not a usable price, so the ceilings cannot be applied. Nothing was sent or charged.`,
    'Check the inputs that drive the price (template, model, quote) and try again; report it if it repeats.',
  );
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
    `Refused: ${fmt(spent)} credits already spent or held today (UTC) on this account; this call's ${fmt(credits)} would exceed the per-day ceiling of ${fmt(limit)} credits (GENPLAT_MAX_CREDITS_PER_DAY), ${fmt(spent + credits - limit)} credits over. Nothing was sent or charged.`,
    'Wait for the next UTC day, or ask the operator to raise GENPLAT_MAX_CREDITS_PER_DAY.',
  );
}

/** `where`: the setting the limit came from (budgets.ts `personDayBudget`); unknown: the environment's two. */
function perUserDayRefusal(
  owner: string,
  spent: number,
  credits: number,
  limit: number,
  where?: string | undefined,
): CostRefusedError {
  const named = where ?? 'GENPLAT_USER_BUDGETS / GENPLAT_USER_MAX_CREDITS_PER_DAY';
  // A file-set limit is raised in the file: GENPLAT_USER_BUDGETS for the same id would stop the start.
  const raise = where === 'GENPLAT_BUDGETS' ? where : 'GENPLAT_USER_BUDGETS';
  return new CostRefusedError(
    'per_user_day',
    `Refused: you (${owner}) have spent or hold ${fmt(spent)} credits today (UTC); this call's ${fmt(credits)} would exceed your per-user daily budget of ${fmt(limit)} credits (${named}), ${fmt(spent + credits - limit)} credits over. Nothing was sent or charged.`,
    `Choose a cheaper option (you have ${fmt(Math.max(0, limit - spent))} credits left today), wait for the next UTC day, or ask the operator to raise your budget in ${raise}.`,
  );
}

const PERIOD_WORDS: Record<BudgetPeriod, { adjective: string; current: string; next: string }> = {
  day: { adjective: 'daily', current: 'today', next: 'day' },
  week: { adjective: 'weekly', current: 'this week', next: 'week' },
  month: { adjective: 'monthly', current: 'this month', next: 'month' },
};

/** `2026-11-01 00:00 UTC` */
const utcMinute = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A budget of `AdmitRules.budgets` refused the call (issue 30): which budget, its period, what was spent since the
 * period began and what is left, e.g. "team video-leads's monthly budget is 10,000 credits; 9,400 spent this month
 * (since 2026-11-01 00:00 UTC), 600 left; this call is quoted at 900".
 */
function budgetRefusal(r: Extract<AdmitRefusal, { period: BudgetPeriod }>): CostRefusedError {
  const p = PERIOD_WORDS[r.period];
  const whose =
    r.scope === 'account'
      ? "the account's"
      : r.scope === 'person'
        ? `your (${r.name ?? 'you'})`
        : `team ${r.name ?? '?'}'s`;
  const where = r.scope === 'account' ? `GENPLAT_MAX_CREDITS_PER_${r.period.toUpperCase()}` : 'GENPLAT_BUDGETS';
  const left = Math.max(0, r.limit - r.spent);
  const next = nextPeriodStart(r.period, r.since);
  return new CostRefusedError(
    'budget',
    `Refused: ${whose} ${p.adjective} budget is ${fmt(r.limit)} credits (${where}); ${fmt(r.spent)} spent or held ${p.current} (since ${utcMinute(r.since)}), ${fmt(left)} left; this call is quoted at ${fmt(r.credits)}. Nothing was sent or charged.`,
    `Choose a cheaper option (${fmt(left)} credits left ${p.current}), wait for the next ${p.next} (from ${utcMinute(next)}), or ask the operator to raise the budget in ${where}.`,
  );
}

export function duplicateRefusal(tool: string, dup: JobRecord): CostRefusedError {
  return new CostRefusedError(
    'duplicate',
    `Refused as a duplicate: an identical ${tool} call is already on record (handle ${dup.handle}, status ${dup.status}, created ${dup.createdAt}${dup.requestId ? `, request id ${dup.requestId}` : ''}). Nothing was sent or charged.`,
    `Follow the earlier job with wait_for_jobs or get_job (handles ["${dup.handle}"])${dup.status === 'unknown' ? '; its submission outcome is unknown, so check the platform project list first' : ''}. Only if the user wants a second identical job, call again with allow_duplicate: true.`,
  );
}

/** The error for a refusal from `store.admit` (nothing was written or sent); `exclusive` is the caller's. */
export function refusalError(tool: string, r: PrecheckRefusal): CostRefusedError {
  switch (r.reason) {
    case 'per_call': {
      const err =
        Number.isFinite(r.credits) && r.credits >= 0
          ? perCallRefusal(r.credits, r.limit)
          : unusableEstimateRefusal(r.credits);
      // A campaign names the item (issue 21): the others were not the problem.
      if (r.item === undefined) return err;
      return new CostRefusedError(
        'per_call',
        `Campaign item ${r.item} (items[${r.item}]): ${err.message}`,
        err.nextStep,
      );
    }
    case 'per_day':
      return perDayRefusal(r.spent, r.credits, r.limit);
    case 'per_user_day':
      return perUserDayRefusal(r.owner, r.spent, r.credits, r.limit, r.where);
    case 'budget':
      return budgetRefusal(r);
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

/** The `declined` answer's reason and next step: the person said no; nothing was sent. */
export function declinedWords(why: string): { reason: string; next_step: string } {
  return {
    reason: `Not confirmed: ${why}.`,
    next_step: 'No charge made and no job started. Ask the user what to change before trying again.',
  };
}

/** A token verified, but redeemed by another call first (here or on another instance): quote again. */
export const TOKEN_ALREADY_USED =
  'The confirmation_token was refused: the confirmation_token was already used. A fresh one is attached.';

/** What the agent must do with a `confirmation_required` answer. */
export function confirmationNextStep(q: {
  tool: string;
  estimate: Estimate;
  summary: string;
  expiresAt: Date;
  humanOnly: boolean;
  warning: string | undefined;
  /** A campaign's or long request's chat summary (chat-summary.ts): shown instead of cost + summary. */
  chatSummary?: string | undefined;
}): string {
  const est = q.estimate;
  const until = q.expiresAt.toISOString();
  const show = q.chatSummary
    ? `Show the user this summary of the request, as it is:\n${q.chatSummary}\nThen: `
    : `Show the user the cost (${priceLine(est)}) and what will be made (${q.summary}); `;
  return `No charge made.${q.warning ? ` ${q.warning} Tell the user this, naming the request id.` : ''} ${show}${
    q.humanOnly
      ? `the user confirms by clicking Confirm on the card in the job viewer (single use, valid until ${until}); this server does not accept the token from you (GENPLAT_CONSENT=human). If no card is shown, the host cannot take a click: the operator must unset GENPLAT_CONSENT or use a host that renders MCP Apps or elicitation forms.`
      : `if they agree, call ${q.tool} again with the same arguments plus confirmation_token (single use, valid until ${until}).`
  }`;
}

/** Why a quote-only credential's paid call got a quote and no token (issue 30 item 6). */
export const QUOTE_ONLY_REASON =
  'This credential may quote but not spend (scope genplat:quote): nothing was admitted or sent, and no confirmation_token, form answer or approval decision from it can start a paid job.';

/** What a quote-only credential's caller does with the quote: hand it to a person who may spend. */
export function quoteOnlyNextStep(q: {
  tool: string;
  estimate: Estimate;
  summary: string;
  fingerprint: string;
  warning: string | undefined;
  chatSummary?: string | undefined;
}): string {
  const show = q.chatSummary
    ? `Show the user this summary of the request, as it is:\n${q.chatSummary}\n`
    : `Show the user the cost (${priceLine(q.estimate)}) and what would be made (${q.summary}). `;
  return `No charge made.${q.warning ? ` ${q.warning}` : ''} ${show}To start it, a person whose own credential may spend (scope genplat:spend, or a static token with spend access) calls ${q.tool} with the same arguments and confirms the quote they get, which names the same request fingerprint ${q.fingerprint.slice(0, 12)}; this credential cannot confirm it.`;
}

/**
 * The store failed before it wrote this call (issue 27 item 2): nothing was admitted, nothing sent. Not a crash:
 * the call may simply be made again once the store answers (the confirmation, unused, is still valid).
 */
export class NotAdmittedError extends GenplatError {
  /** `released`: the store recorded it but its answer was lost, and this call released it unsent. */
  constructor(what: 'call' | 'campaign', released: boolean, options?: { cause?: unknown }) {
    super(
      released
        ? `Not admitted: the job store's answer to this ${what}'s admission was lost, so it was released unsent. Nothing was sent and nothing charged.`
        : `Not admitted: the job store failed before it recorded this ${what}. Nothing was sent and nothing charged.`,
      'Call again with the same arguments once the store answers (the operator can check it with genplat-mcp doctor).',
      options,
    );
  }
}

/**
 * The store may have admitted the call but its answer was lost (COMMIT unanswered), and it could not be asked
 * since. Never "try again": a second call could be a second admission. What is true either way: this server sends
 * only what it saw admitted, so nothing was sent, and the handle shows what became of it.
 */
export function admissionUnknownWords(
  handle: string,
  what: 'call' | 'campaign',
): { reason: string; next_step: string } {
  return {
    reason: `The job store did not confirm whether this ${what} was admitted (its answer was lost, and the store has not answered since). It may have been admitted; nothing was sent, and nothing will be: this server sends only what it saw admitted.`,
    next_step: `Do not call again yet. Follow ${handle} with get_job: once the job store answers again, it shows the ${what} released, nothing sent (or not on record: never admitted). Only then make the call again, for a fresh quote.`,
  };
}

/** The reason a bundle item released past its consent window carries (the campaign view reports it as `released`). */
export const RELEASED_REASON =
  'released: the campaign consent window ended before this item was sent; nothing was sent or charged, its reservation was returned';

/** A queued item with local files, sent where no stager is configured (any more): refused unsent. */
export const NO_STAGER_ANY_MORE = 'no staging bucket is configured any more';

/** A queued item's upload, gone before its send: refused unsent. */
export const UPLOAD_GONE = 'the upload is gone (expired or deleted) since the quote';

/** The reason of an intent the admitting call released after its admission's answer was lost. */
export const RELEASED_UNCONFIRMED =
  'released: the store did not confirm this admission to the call that made it; nothing was sent or charged, its reservation was returned';

/**
 * `confirm_paid_call` under GENPLAT_CONSENT=human without the nonce of a View this server served (src/apps/view-nonce.ts):
 * a capability claim is not a person's click.
 */
export function viewNonceRefusal(problem: string): { rule: string; next: string } {
  return {
    rule: `is ${problem}: a Confirm click counts only from the job viewer or campaign board this server served (GENPLAT_CONSENT=human), so nothing was confirmed`,
    next: "Nothing was sent or charged. Show the user the quote in the job viewer (call the quoted tool again to get a fresh card) and let them click its Confirm; don't call confirm_paid_call yourself.",
  };
}

/** A bundle's summary (the consent prompt and the ledger): how many items, of which tools. */
export function bundleSummary(count: number, tools: string[]): string {
  return `campaign of ${count} items (${tools.join(', ')})`;
}

/** A bundle's quote basis: each item's quote, and how many are unbounded. */
export function bundleBasis(credits: number[], unbounded: number): string {
  return `${credits.length} items: ${credits.map((c, n) => `[${n}] ${c}`).join(', ')}${
    unbounded ? `; ${unbounded} unbounded (counted at their quote, explicit consent)` : ''
  }`;
}

/** A bundle item identical to a job whose outcome is not known (allow_duplicate): one consent cannot warn about it. */
export function itemOutcomeNotKnown(
  item: number,
  record: Pick<JobRecord, 'owner' | 'handle' | 'outcome'>,
  owner: string | undefined,
): UserInputError {
  const handle = record.owner === owner ? record.handle : 'of another caller';
  return new UserInputError(
    `items[${item}]`,
    `is identical to a job whose outcome is ${record.outcome === 'unknown' ? 'unknown' : 'not known yet'} (handle ${handle}): it may already be made and charged, and a campaign's one consent cannot warn about it`,
    'Follow that job with get_job first; to make this item again anyway, call its own tool with allow_duplicate: true (you will be warned and asked). Nothing was sent or charged.',
  );
}

/** Two identical items of one campaign (`firstIdenticalItem`): refused before anything is quoted or sent. */
export function identicalItemsError(twin: { repeat: number; of: number }): UserInputError {
  return new UserInputError(
    `items[${twin.repeat}]`,
    `is identical to items[${twin.of}] (same tool and request): both would be made and charged; vary a field or remove it, or call with allow_duplicate: true to make several takes of the same on purpose`,
  );
}

/** A bundle item identical to an active job (the duplicate rule), refused before its quote. */
export function itemDuplicateMessage(index: number, message: string): string {
  return `Campaign item ${index} (items[${index}]): ${message}`;
}

/** The next step of an admitted campaign: follow its one handle. */
export function campaignAdmittedNextStep(handle: string, total: number): string {
  return `Campaign admitted: ${total} items are being sent one by one. Call wait_for_jobs with handles ${JSON.stringify([handle])} (or get_job) for "k of ${total} done" and each item's status and outputs.`;
}

/** A paid call the approval policy refuses outright, or over stdio where no second person can approve. */
export class ApprovalRefusedError extends GenplatError {}

/** Over stdio there is one local, unproven person: a call the policy would hold cannot be approved by anyone. */
export const STDIO_NEEDS_APPROVAL =
  'Refused: the approval policy (GENPLAT_APPROVALS) asks for an approval of this call, and over stdio there is no signed-in requester nor a second, proven person to approve it. Nothing was sent and nothing was charged.';
export const STDIO_NEEDS_APPROVAL_NEXT =
  'Make the call through an HTTP deployment where you sign in, so a listed approver can approve it, or ask for a smaller call.';
export const CANNOT_BE_APPROVED_NEXT = 'Ask the operator to add approvers to the rule, or make a smaller call.';

/** The approval_required answer's next step. */
export function approvalNextStep(handle: string, link: string | undefined): string {
  const page = link ? ` An approver can decide on ${link}.` : '';
  return `Tell the person the call waits for approval. Follow it with get_job("${handle}"): once approved the server sends it itself; do not call again.${page}`;
}

/** Why a held item was released unsent (its reservation returned). */
export const HELD_DECLINED =
  'released: the approval was declined; nothing was sent or charged, its reservation was returned';
export const HELD_EXPIRED =
  'released: nobody approved before the approval expired; nothing was sent or charged, its reservation was returned';
export function heldRefusedAtSend(why: string): string {
  return `released: approved, but the call no longer fits (${why}); nothing was sent or charged, its reservation was returned`;
}

/** The chat summary's first line (chat-summary.ts): what is made; a bundle by its items per tool. */
export function summaryHeadline(
  card: { tool: string; summary: string },
  count: number,
  tools: { tool: string; count: number }[],
): string {
  if (count === 1 && tools.length === 1 && tools[0]!.tool === card.tool) {
    return `${card.tool}: ${card.summary.replace(/\s+/g, ' ').trim()}.`;
  }
  return `${card.tool}: ${count} items: ${tools.map((t) => `${t.count} × ${t.tool}`).join(', ')}.`;
}

/** The chat summary's cost: the card's price sentence (total, proven or not), unchanged. */
export const summaryCostLine = (price: string) => `Cost (total): ${price}.`;

/** What differs between a bundle's items; `product` when they are every combination of the values. */
export function summaryVariesLine(fields: string[], product: number | undefined): string {
  return product !== undefined
    ? `Varies (${product} combinations): ${fields.join(' × ')}`
    : `Varies between items: ${fields.join('; ')}`;
}

/** Between the summary and the full card in a consent form. */
export const FULL_CARD_BELOW = '— Full card —';

export const summarySameLine = () => 'Same in every item:';
export const summaryFieldsLine = (n: number) => `Sent (${n} field${n === 1 ? '' : 's'}):`;
export const summaryMore = (n: number) => `… and ${n} more (in the full card)`;
export const summaryLongValue = (name: string, length: number) =>
  `${name} (${length.toLocaleString('en-US')} characters)`;
export const summaryValuePreview = (name: string, n: number, preview: string, length: number) =>
  `  ${name} ${n}: "${preview}" (${length.toLocaleString('en-US')} characters)`;

/** Where the full card is, one step from the summary, and the request's short ref (its fingerprint's start). */
export function summaryFullCardLine(
  where: ({ at: 'below' } | { at: 'app' } | { at: 'page'; url: string } | { at: 'request' })[],
  ref: string | undefined,
): string {
  const said = where.map((w) => {
    switch (w.at) {
      case 'below':
        return 'below this summary';
      case 'app':
        return 'the card shown with this answer (job viewer or campaign board)';
      case 'page':
        return `the approval page ${w.url}`;
      default:
        return 'ask, and every field of this call is listed';
    }
  });
  return `Full card (every field, in full): ${said.join('; or ')}.${ref ? ` Request ref ${ref}.` : ''}`;
}

/** A create_campaign asked again while the campaign it admitted runs (campaign-repeat.ts): that campaign. */
export function campaignRepeatNextStep(handle: string, then: string): string {
  return `Already confirmed: this is campaign ${handle}, admitted earlier; nothing more was sent or charged. ${then}`;
}
