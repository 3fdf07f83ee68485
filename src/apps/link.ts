/**
 * Which View renders a tool's results, and what the consent card needs to redeem a quote. Derived from the
 * spec once: every billable tool opens the job viewer; read tools name theirs with `ui`.
 */

import type { ToolSpec } from '../define-tool.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import type { ConsentCard } from '../paid/consent-card.js';
import { JOB_VIEWER_URI, uiMeta } from './uris.js';

export function toolUiMeta(spec: Pick<ToolSpec, 'ui' | 'billable'>): Record<string, unknown> | undefined {
  const uri = spec.ui ?? (spec.billable ? JOB_VIEWER_URI : undefined);
  return uri ? uiMeta(uri) : undefined;
}

/** The `_meta` key of a confirmation_required result that the consent card reads. */
export const CONFIRM_META_KEY = 'genplat/confirm';

/**
 * What the card sends back to `confirm_paid_call`: the tool and the exact arguments that were quoted (the token
 * is bound to them, so nothing here can be changed without voiding it), and what the card shows: the consent
 * card built from the request (src/paid/consent-card.ts, the same as the form's message). In `_meta`, which
 * hosts give the View and not the model: a long script costs the model no tokens. Only for a quote.
 */
export function confirmMeta(
  tool: string,
  args: Record<string, unknown>,
  env: JobEnvelope,
  card?: ConsentCard,
): Record<string, unknown> | undefined {
  if (env.status !== 'confirmation_required') return undefined;
  const { confirmation_token: _token, ...rest } = args;
  return { [CONFIRM_META_KEY]: { tool, arguments: rest, ...(card ? { card } : {}) } };
}
