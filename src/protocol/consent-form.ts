/**
 * The confirmation form, in each era's own way (one consent decision, three carriers: this form, the
 * confirmation token, the App's Confirm click):
 * - 2026-07-28 clients: a multi round-trip request. The tool answers `input_required` with an elicitation and a
 *   signed `requestState` holding a fresh confirmation token; the client shows the form and retries the call
 *   with the answer, which `readFormRound` reads back. Any instance can take the retry.
 * - 2025-era clients that declared elicitation, on a connection that can carry a request to the client (stdio,
 *   in-process): a pushed `elicitation/create`, answered within `elicitationTimeoutMs`, else a token.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { FormRound } from '../paid/consent.js';
import type { ElicitOutcome } from '../paid/guard.js';
import { clientCapabilities, clientName, isModern, isStatelessLegacyHttp } from './era.js';
import type { ConsentState, ConsentStateCodec } from './request-state.js';

/**
 * The one field of the form (a flat primitive schema, as elicitation requires). The message holds the whole card
 * (src/paid/consent-card.ts); repeating it here would show a long script twice.
 */
function formSchema() {
  return {
    type: 'object' as const,
    properties: {
      confirm: {
        type: 'boolean' as const,
        title: 'Start this paid job',
        description: 'Starts the job described above, at the cost shown',
        default: false,
      },
    },
    required: ['confirm'],
  };
}

/**
 * Form elicitation declared: `elicitation: {}` (form is the default mode, as the SDK reads it) or with `form`.
 * A URL-only client cannot show a form: asking would be a -32021 protocol error instead of a token to quote.
 */
function declaresFormElicitation(elicitation: unknown): boolean {
  if (!elicitation || typeof elicitation !== 'object') return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

/** Which way this request's client can be asked with a form, if any. */
export function formCarrierFor(server: McpServer, ctx: ServerContext, config: Config): 'mrtr' | 'push' | undefined {
  if (config.elicitation !== 'auto') return undefined;
  if (!declaresFormElicitation(clientCapabilities(server, ctx)?.elicitation)) return undefined;
  const name = clientName(server, ctx);
  if (name && config.elicitationSkipClients.includes(name)) return undefined;
  if (isModern(server)) return 'mrtr';
  return isStatelessLegacyHttp(server, ctx) ? undefined : 'push';
}

/** The round a 2026-07-28 retry is in: no verified state yet → ask; else the person's answer and the token. */
export function readFormRound(ctx: ServerContext): FormRound {
  const state = ctx.mcpReq.requestState<ConsentState>();
  if (!state || typeof state !== 'object' || typeof state.t !== 'string') return { round: 'ask' };
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
  if (answer.kind !== 'elicit') return { round: 'ask' };
  if (answer.action === 'accept' && answer.content?.confirm === true) {
    return { round: 'answered', accepted: true, token: state.t };
  }
  // Dismissed, not refused (headless `claude -p` cancels every form unasked): the token flow follows.
  if (answer.action === 'cancel') return { round: 'answered', accepted: false, dismissed: true };
  return {
    round: 'answered',
    accepted: false,
    reason: answer.action === 'accept' ? 'the user left "confirm" unticked' : `the user chose "${answer.action}"`,
  };
}

/** The `input_required` answer of the first round. */
export async function askWithForm(
  message: string,
  token: string,
  codec: ConsentStateCodec,
  ctx: ServerContext,
): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: { confirm: inputRequired.elicit({ message, requestedSchema: formSchema() }) },
    requestState: await codec.mint({ t: token }, ctx),
  });
}

/**
 * A 2025-era pushed form; a form nobody answers in time, one dismissed (`cancel`), or one the client cannot show,
 * falls back to a token. Only `decline` (or an unticked box) is the person's "no".
 */
export function pushForm(ctx: ServerContext, config: Config, log: Logger) {
  return async (message: string): Promise<ElicitOutcome> => {
    try {
      const r = await ctx.mcpReq.elicitInput(
        { mode: 'form', message, requestedSchema: formSchema() },
        // Shorter than the host's ~60 s tool timeout, so a form nobody answers falls back to a token in time.
        { timeout: config.elicitationTimeoutMs, signal: ctx.mcpReq.signal },
      );
      if (r.action === 'accept' && r.content?.confirm === true) return { outcome: 'accepted' };
      // Dismissed, not refused (headless `claude -p` cancels every form unasked): the token flow follows.
      if (r.action === 'cancel') return { outcome: 'dismissed' };
      return {
        outcome: 'declined',
        reason: r.action === 'accept' ? 'the user left "confirm" unticked' : `the user chose "${r.action}"`,
      };
    } catch (err) {
      log.info('elicitation failed; falling back to a confirmation token', { error: String(err) });
      const timedOut = /timed? ?out/i.test(String(err));
      return {
        outcome: 'failed',
        reason: timedOut
          ? `no answer within ${Math.round(config.elicitationTimeoutMs / 1000)} s`
          : 'the client could not show it',
      };
    }
  };
}

export type ToolAnswer = CallToolResult | InputRequiredResult;
