/**
 * Reconciliation: the quote the user consented to against what the platform reports it charged.
 *
 * The platform reports charges in a few places (gestures' `credits_charged`, the dedicated family's
 * `estimated_credits` / `credits_charged` in the submit answer, the upscale attempt's `credits_charged` /
 * `credits_refunded`). The ledger keeps both figures; this module is the one place that decides what a
 * record counts against the per-day ceiling and whether the platform charged more than the quote.
 */
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { JobRecord } from './store.js';

export const ReconciliationSchema = z.object({
  quote_credits: z.number().describe('displayed credits quoted and consented to'),
  charged_credits: z.number().describe('displayed credits the platform reports charging (or estimating)'),
  refunded_credits: z.number().optional().describe('displayed credits the platform reports refunding'),
  above_quote: z.boolean().describe('true when the reported charge exceeds the quote'),
  excess_credits: z.number().describe('reported charge minus quote, when above it (else 0)'),
  counted_credits: z.number().describe("what this job counts toward today's spend and the per-day ceiling"),
});
export type Reconciliation = z.infer<typeof ReconciliationSchema>;

type Figures = Pick<
  JobRecord,
  'estimate' | 'creditsCharged' | 'creditsRefunded' | 'platformEstimate' | 'outcome' | 'status'
>;

/** May the job still start or run (so a charge reported so far is provisional)? Mirrors the duplicate guard. */
export function mayStillRun(r: Pick<JobRecord, 'outcome' | 'status'>): boolean {
  if (r.outcome === 'queued' || r.outcome === 'pending' || r.outcome === 'unknown') return true;
  return r.outcome === 'submitted' && (r.status === 'submitted' || r.status === 'processing');
}

/**
 * The platform's own figure for the job: its reported charge, else its estimate (the dedicated family may
 * report only `estimated_credits`). Undefined when it reported neither.
 */
export function reportedCharge(r: Pick<JobRecord, 'creditsCharged' | 'platformEstimate'>): number | undefined {
  const figures = [r.creditsCharged, r.platformEstimate].filter((n): n is number => typeof n === 'number');
  return figures.length ? Math.max(...figures) : undefined;
}

/**
 * Displayed credits a record counts toward the day's spend. While the job may still run: the larger of the
 * quote and any figure the platform reported (a provisional charge never lowers it: the upscale status reads
 * 0 while preparing although the attempt was charged on acceptance). Once final: the reported charge minus
 * refunds, else the quote. Never negative; a rejected submission counts nothing.
 */
export function countedCredits(r: Figures): number {
  // Not admitted here (a job followed by id has no quote) or rejected: not on our spend (COUNTED_SQL).
  if (r.outcome === 'rejected' || !r.estimate) return 0;
  const quote = r.estimate.credits;
  const reported = reportedCharge(r);
  // Final without a reported charge: never below the quote (issue 18), as spendSql.
  const spent = mayStillRun(r)
    ? Math.max(quote, reported ?? 0)
    : (r.creditsCharged ?? Math.max(r.platformEstimate ?? 0, quote));
  return Math.max(0, spent - (r.creditsRefunded ?? 0));
}

/** Quote vs reported charge; undefined until the platform reported a figure (or without a quote). */
export function reconcile(r: Figures): Reconciliation | undefined {
  const charged = reportedCharge(r);
  if (charged === undefined || !r.estimate) return undefined;
  const quote = r.estimate.credits;
  return {
    quote_credits: quote,
    charged_credits: charged,
    ...(r.creditsRefunded ? { refunded_credits: r.creditsRefunded } : {}),
    above_quote: charged > quote,
    excess_credits: Math.max(0, charged - quote),
    counted_credits: countedCredits(r),
  };
}

/** The sentence for the agent (envelope next_step) when the platform charged more than the quote. */
export function aboveQuoteSentence(rc: Reconciliation): string {
  return `Tell the user: the platform reports ${rc.charged_credits} credits for this job, ${rc.excess_credits} above the ${rc.quote_credits}-credit quote they agreed to; today's spend and the per-day ceiling count the higher figure.`;
}

/** Logs a charge above the quote (ids and figures only: nothing secret is in a record's charges). */
export function warnIfAboveQuote(log: Pick<Logger, 'warn'>, r: Figures & Pick<JobRecord, 'id' | 'handle' | 'tool'>) {
  const rc = reconcile(r);
  if (!rc?.above_quote) return;
  log.warn('platform charge above the quote', {
    ledger: r.id,
    handle: r.handle,
    tool: r.tool,
    quote: rc.quote_credits,
    charged: rc.charged_credits,
    excess: rc.excess_credits,
  });
}
