/**
 * The paid call's steps as spans (issue 30 item 1, docs/operate.md "Traces"), one wrapper per step so the pipeline
 * keeps its shape: the quote (pricing), consent (the guard: ceilings' pre-check, duplicate, the person's answer) and
 * admission (the store's one transaction), each saying its outcome and, when refused, the rule that refused.
 * Figures and rule names only: never the request body, a token or who the person is.
 */
import type { JobEnvelope } from '../jobs/envelope.js';
import type { BundleAdmitResult } from '../store/types.js';
import { inSpan } from '../telemetry/traces.js';
import type { GuardDecision } from './guard.js';

/** The quote: the figure and whether it is proven (a repeat of a running campaign has none). */
export function traceQuote<P extends object>(tool: string, prepare: () => Promise<P>): Promise<P> {
  return inSpan('genplat.quote', { 'gen_ai.tool.name': tool }, async (mark) => {
    const p = await prepare();
    const e = 'estimate' in p ? (p.estimate as JobEnvelope['estimate'] | undefined) : undefined;
    if (e) {
      mark.set({ 'genplat.quote.credits': e.credits, 'genplat.quote.bounded': e.bounded });
    }
    return p;
  });
}

/** Consent: what the guard decided, how consent was given, and the ceiling or duplicate rule that refused. */
export function traceConsent(guard: () => Promise<GuardDecision>): Promise<GuardDecision> {
  return inSpan('genplat.consent', {}, async (mark) => {
    const d = await guard();
    mark.set({
      'genplat.consent.decision': d.kind,
      'genplat.consent.path': d.kind === 'allow' ? d.consent : undefined,
      'genplat.admission.refused_by': d.kind === 'refuse' ? d.error.refusal : undefined,
    });
    return d;
  });
}

/** Admission: the store's transaction, admitted or the rule that refused (`per_day`, `duplicate`, `token_used`…). */
export function traceAdmission<R extends BundleAdmitResult>(admit: () => Promise<R>): Promise<R> {
  return inSpan('genplat.admission', {}, async (mark) => {
    const a = await admit();
    mark.set(
      a.admitted
        ? { 'genplat.admission.outcome': 'admitted' }
        : { 'genplat.admission.outcome': 'refused', 'genplat.admission.refused_by': a.reason },
    );
    return a;
  });
}
