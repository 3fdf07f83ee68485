/**
 * Turns tool specs into registered MCP tools and does the cross-cutting work once (style.md 2.2):
 * toolset / read-only filtering, the webhook allow-list, validation, the cost guard, the ledger around the
 * single POST, and error → result mapping. A tool file only declares schemas and maps input to a client call.
 *
 * Billable flow: (zod input, by the SDK) → webhook_url allow-list → spec.validate → spec.request (the exact
 * platform request, built once) → estimate → guard (fingerprint over that request)
 * (ceilings → duplicate → consent) → in the store's exclusive section (shared with other server processes on
 * the same state dir): ceilings and duplicate again, spec.beforeSend, ledger intent → spec.run (exactly one
 * POST, outside the section; cancellation does not reach it) → ledger outcome → envelope.
 * Nothing throws out of a handler: a platform failure never crashes the server.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { confirmMeta, toolUiMeta } from './apps/link.js';
import type { Catalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import { type ElicitOutcome, guardCall, recheckBeforeSend } from './cost/guard.js';
import type {
  BillableToolSpec,
  ReadToolSpec,
  Submission,
  ToolAnnotations,
  ToolContext,
  ToolSpec,
} from './define-tool.js';
import { GenplatError, PlatformError, SubmissionUnknownError } from './errors.js';
import { checkArgumentDepth } from './guards/depth.js';
import { checkWebhookUrl } from './guards/url.js';
import { type JobEnvelope, JobEnvelopeShape } from './jobs/envelope.js';
import { encodeHandle, tryEncodeHandle } from './jobs/handle.js';
import type { Poller } from './jobs/poller.js';
import { aboveQuoteSentence, reconcile, warnIfAboveQuote } from './jobs/reconcile.js';
import type { JobRecord, JobStore } from './jobs/store.js';
import type { Logger } from './log.js';
import { envelopeResult, readResult, toolError } from './result.js';

export interface RuntimeDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  catalog: Catalog;
  poller: Poller;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio. */
  owner?: string | undefined;
  /** ms since epoch; injectable so tests can expire tokens and move days without sleeping. */
  now?: () => number;
  /** Confirmation-token lifetime (default `TOKEN_TTL_MS`, 10 min). */
  tokenTtlMs?: number;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Args = Record<string, unknown>;

/** design.md section 2: every billable tool carries exactly these hints. */
export const BILLABLE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** The two arguments every billable tool gains (they steer the guard, never reach the platform). */
export const GUARD_INPUT = {
  confirmation_token: z
    .string()
    .optional()
    .describe('Token from a confirmation_required answer, after the user agreed to the cost'),
  allow_duplicate: z
    .boolean()
    .optional()
    .describe('true only if the user wants a job identical to one still running or of unknown outcome'),
};

/** Which specs this configuration exposes: the chosen toolsets; read-only mode hides every billable tool. */
export function visibleSpecs(specs: ToolSpec[], config: Config): ToolSpec[] {
  return specs.filter((s) => config.toolsets.includes(s.toolset) && !(config.readOnly && s.billable));
}

/**
 * Registers the visible specs on `server`.
 * @throws Error when two specs share a name (a programming error, caught by the registry test).
 */
export function registerTools(server: McpServer, specs: ToolSpec[], deps: RuntimeDeps): RegisteredTool[] {
  const out: RegisteredTool[] = [];
  for (const spec of visibleSpecs(specs, deps.config)) {
    const billable = spec.billable !== undefined;
    if (billable && JSON.stringify(spec.annotations) !== JSON.stringify(BILLABLE_ANNOTATIONS)) {
      deps.log.warn(`tool ${spec.name}: billable tools always use the billable annotations; the spec's were replaced`);
    }
    const config = {
      title: spec.title,
      description: spec.description,
      // Strict: an unknown or misspelt argument is refused (naming it) instead of silently dropped.
      inputSchema: z.strictObject(billable ? { ...spec.input, ...GUARD_INPUT } : spec.input),
      outputSchema: (billable ? JobEnvelopeShape : spec.output) as z.ZodRawShape,
      annotations: { title: spec.title, ...(billable ? BILLABLE_ANNOTATIONS : spec.annotations) },
      // MCP Apps: which View (ui://) renders this tool's results (src/apps/link.ts).
      _meta: toolUiMeta(spec),
    };
    const handler = async (args: Args, extra: Extra): Promise<CallToolResult> => {
      try {
        // Before any tool code walks the arguments: a walk over a very deep value would overflow the stack.
        checkArgumentDepth(args);
        return spec.billable
          ? await runBillable(server, spec as BillableToolSpec<z.ZodRawShape>, args, extra, deps)
          : await runRead(spec as ReadToolSpec<z.ZodRawShape, z.ZodRawShape>, args, extra, deps);
      } catch (err) {
        return toolError(err, deps.log);
      }
    };
    out.push(server.registerTool(spec.name, config, handler as never));
  }
  return out;
}

/** The per-call context handed to `validate`, `estimate` and `run`. */
function makeContext(extra: Extra, deps: RuntimeDeps): ToolContext {
  const token = extra._meta?.progressToken;
  let last = Number.NEGATIVE_INFINITY;
  return {
    config: deps.config,
    client: deps.client,
    jobs: deps.jobs,
    catalog: deps.catalog,
    poller: deps.poller,
    log: deps.log,
    signal: extra.signal,
    owner: deps.owner,
    async progress(p) {
      // Only when the client asked (it sent a token), and strictly increasing as the spec requires.
      if (token === undefined || !(p.progress > last)) return;
      last = p.progress;
      try {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(p.message !== undefined ? { message: p.message } : {}),
          },
        });
      } catch (err) {
        deps.log.debug('progress notification not delivered', { error: String(err) });
      }
    },
  };
}

async function runRead(
  spec: ReadToolSpec<z.ZodRawShape, z.ZodRawShape>,
  args: Args,
  extra: Extra,
  deps: RuntimeDeps,
): Promise<CallToolResult> {
  const ctx = makeContext(extra, deps);
  await spec.validate?.(args as never, ctx);
  const r = await spec.run(args as never, ctx);
  const result = readResult(r.structured as object, r.links, r.isError);
  return r.meta ? { ...result, _meta: r.meta } : result;
}

/** The signal billable `run()`s see (see runBillable). */
const NEVER_ABORTS: AbortSignal = new AbortController().signal;

/** Whether the client can be asked with a form: it declared elicitation, is not skip-listed, and config allows. */
function canElicit(server: McpServer, config: Config): boolean {
  if (config.elicitation !== 'auto') return false;
  if (!server.server.getClientCapabilities()?.elicitation) return false;
  const name = server.server.getClientVersion()?.name?.toLowerCase();
  return !(name && config.elicitationSkipClients.includes(name));
}

function elicitor(server: McpServer, extra: Extra, deps: RuntimeDeps) {
  return async (message: string): Promise<ElicitOutcome> => {
    try {
      const r = await server.server.elicitInput(
        {
          mode: 'form',
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              confirm: { type: 'boolean', title: 'Start this paid job', description: message, default: false },
            },
            required: ['confirm'],
          },
        },
        // Shorter than the host's ~60 s tool timeout, so a form nobody answers falls back to a token in time.
        { relatedRequestId: extra.requestId, timeout: deps.config.elicitationTimeoutMs, signal: extra.signal },
      );
      if (r.action === 'accept' && r.content?.confirm === true) return { outcome: 'accepted' };
      return {
        outcome: 'declined',
        reason: r.action === 'accept' ? 'the user left "confirm" unticked' : `the user chose "${r.action}"`,
      };
    } catch (err) {
      deps.log.info('elicitation failed; falling back to a confirmation token', { error: String(err) });
      const timedOut = /timed? ?out/i.test(String(err));
      return {
        outcome: 'failed',
        reason: timedOut
          ? `no answer within ${Math.round(deps.config.elicitationTimeoutMs / 1000)} s`
          : 'the client could not show it',
      };
    }
  };
}

/**
 * The billable path. `carrier` says who presented a confirmation token: `human` only from the App's Confirm
 * click (src/apps/confirm-tool.ts, an app-only tool); every model call is `model`.
 */
export async function runBillable(
  server: McpServer,
  spec: BillableToolSpec<z.ZodRawShape>,
  args: Args,
  extra: Extra,
  deps: RuntimeDeps,
  carrier: 'model' | 'human' = 'model',
): Promise<CallToolResult> {
  const { confirmation_token, allow_duplicate, ...input } = args;
  const ctx = makeContext(extra, deps);
  const now = deps.now ?? Date.now;

  if (typeof input.webhook_url === 'string' && input.webhook_url !== '') {
    checkWebhookUrl('webhook_url', input.webhook_url, deps.config.webhookAllowlist);
  }
  await spec.validate?.(input as never, ctx);
  // Built once: the fingerprint below (what the token and the duplicate rule bind to) and the POST in run()
  // use this same object, so what the user consented to is byte for byte what is sent.
  const request = await spec.request(input as never, ctx);
  const est = await spec.billable.estimate(input as never, ctx);
  const kind = spec.billable.kind(input as never);
  const summary = spec.billable.summary(input as never);

  const decision = await guardCall(
    { config: deps.config, jobs: deps.jobs, now, ...(deps.tokenTtlMs ? { tokenTtlMs: deps.tokenTtlMs } : {}) },
    {
      tool: spec.name,
      kind,
      request,
      estimate: est,
      summary,
      owner: deps.owner,
      token: typeof confirmation_token === 'string' ? confirmation_token : undefined,
      allowDuplicate: allow_duplicate === true,
      carrier,
      elicit: canElicit(server, deps.config) ? elicitor(server, extra, deps) : undefined,
    },
  );
  if (decision.kind === 'refuse') return toolError(decision.error, deps.log);
  if (decision.kind === 'answer') {
    // The App's consent card needs the call to redeem: tool and arguments ride in `_meta`, not the envelope.
    const note = decision.envelope.status === 'confirmation_required' ? spec.billable.quoteNote?.(input as never) : '';
    const envelope = note
      ? { ...decision.envelope, next_step: `${decision.envelope.next_step} ${note}` }
      : decision.envelope;
    return { ...envelopeResult(envelope), _meta: confirmMeta(spec.name, args, envelope) };
  }

  // Ceilings and duplicates again, atomically with the intent: parallel calls (and a slow consent form) read
  // the ledger before either wrote its intent, so both could pass the day's ceiling or both send one job.
  // `exclusive` covers calls in this process and in other server processes on the same state dir; the POST
  // stays outside it. If it cannot be entered in time it throws: refused, nothing sent.
  const admitted = await deps.jobs.exclusive(async () => {
    const late = await recheckBeforeSend(
      { config: deps.config, jobs: deps.jobs, now },
      {
        tool: spec.name,
        estimate: est,
        owner: deps.owner,
        allowDuplicate: allow_duplicate === true,
        duplicateOf: decision.duplicateOf,
      },
      decision.fingerprint,
    );
    if (late) return late;
    // A refusal thrown here reaches the handler's catch before anything was written or sent.
    await spec.billable.beforeSend?.(input as never, ctx);
    // Durable before the POST: if we die mid-send, the ledger still knows a job may exist.
    return deps.jobs.recordIntent({
      tool: spec.name,
      kind,
      fingerprint: decision.fingerprint,
      summary,
      estimate: est,
      consent: decision.consent,
      owner: deps.owner,
    });
  });
  if (admitted instanceof GenplatError) return toolError(admitted, deps.log);
  const rec = admitted;
  deps.log.info(`submitting ${spec.name}`, { ledger: rec.id, credits: est.credits, consent: decision.consent });

  let sub: Submission;
  try {
    // run() gets a signal that never fires: once the paid POST may be on the wire, only its answer tells us
    // the job's id, so a cancelled call must still read it into the ledger (invariant 3). Tools that pass
    // ctx.signal to the submit (run_model, create_family_video) would otherwise turn a job into "unknown".
    sub = await spec.run(input as never, { ...ctx, signal: NEVER_ABORTS }, request);
  } catch (err) {
    return recordFailure(rec, err, kind, est, deps);
  }
  return recordSubmission(rec, sub, est, deps);
}

const compact = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));

async function recordSubmission(
  rec: JobRecord,
  sub: Submission,
  est: JobEnvelope['estimate'],
  deps: RuntimeDeps,
): Promise<CallToolResult> {
  // An id no handle can carry (lone surrogate, too long) keeps the ledger handle `submission:<id>`; the
  // record's `ref` holds the platform id, and get_job / wait_for_jobs follow the job through it.
  const handle = tryEncodeHandle(sub.ref) ?? rec.handle;
  const status = sub.status ?? 'processing';
  const remote = compact(sub.remote);
  const charges = {
    ...(sub.creditsCharged !== undefined ? { creditsCharged: sub.creditsCharged } : {}),
    ...(sub.platformEstimate !== undefined ? { platformEstimate: sub.platformEstimate } : {}),
  };
  // What the ledger now holds for this job: the quote and whatever the platform reported at submit time.
  const settled = { ...rec, ...charges, outcome: 'submitted' as const, status, handle };
  warnIfAboveQuote(deps.log, settled);
  const reconciliation = reconcile(settled);
  try {
    await deps.jobs.update(rec.id, {
      outcome: 'submitted',
      handle,
      ref: sub.ref,
      kind: sub.ref.kind,
      status,
      requestId: sub.requestId,
      remote,
      outputs: sub.outputs ?? [],
      ...charges,
      ...(sub.originalUrl !== undefined ? { originalUrl: sub.originalUrl } : {}),
    });
  } catch (err) {
    // The job exists and the handle below is all the agent needs; the intent record still holds the spend.
    deps.log.error('ledger update after an accepted submission failed', { ledger: rec.id, handle, error: String(err) });
  }
  const done = status === 'completed';
  const envelope: JobEnvelope = {
    status: done ? 'completed' : 'submitted',
    handle,
    kind: sub.ref.kind,
    ...(est ? { estimate: est } : {}),
    remote,
    ...(sub.outputs?.length ? { outputs: sub.outputs } : {}),
    ...(sub.creditsCharged !== undefined ? { credits_charged: sub.creditsCharged } : {}),
    ...(reconciliation ? { reconciliation } : {}),
    ...(sub.requestId ? { request_id: sub.requestId } : {}),
    ...(sub.details ? { details: sub.details } : {}),
    next_step:
      (reconciliation?.above_quote ? `${aboveQuoteSentence(reconciliation)} ` : '') +
      (done
        ? 'Done: the result is in outputs (and details). No further call is needed.'
        : `Call wait_for_jobs with handles ${JSON.stringify([handle])}; each call waits up to ~45 s, so call again with the returned handles until the status is completed or failed.`),
  };
  return envelopeResult(envelope);
}

/**
 * Was a job-starting POST possibly sent? The client maps every ambiguous failure of a job-starting POST
 * (timeout, reset, 5xx, unreadable 2xx, `submission_unknown`) to SubmissionUnknownError, and its area tests
 * pin the submit flag on every generate route. So any other platform error came from a definitive POST
 * answer (4xx, never-sent connection) or from a free read before the POST (e.g. a pack lookup that got a
 * 5xx): nothing billable went out. Our own input/config errors are raised before sending. Anything else
 * is unrecognised: assume the worst.
 */
function maySent(err: unknown): boolean {
  if (err instanceof SubmissionUnknownError) return true;
  return !(err instanceof GenplatError);
}

async function recordFailure(
  rec: JobRecord,
  err: unknown,
  kind: JobEnvelope['kind'],
  est: JobEnvelope['estimate'],
  deps: RuntimeDeps,
): Promise<CallToolResult> {
  if (!maySent(err)) {
    const requestId = err instanceof PlatformError ? err.requestId : undefined;
    await deps.jobs
      .update(rec.id, {
        outcome: 'rejected',
        status: 'failed',
        requestId,
        reason: err instanceof Error ? err.message : String(err),
      })
      .catch((e) => deps.log.error('ledger update (rejected) failed', { ledger: rec.id, error: String(e) }));
    return toolError(err, deps.log);
  }
  const unknown =
    err instanceof SubmissionUnknownError
      ? err
      : new SubmissionUnknownError(err instanceof PlatformError ? err : undefined, (err as PlatformError)?.requestId);
  if (!(err instanceof GenplatError)) deps.log.error('unexpected error while submitting', { error: String(err) });
  const handle = encodeHandle({ kind: 'submission', id: rec.id });
  await deps.jobs
    .update(rec.id, {
      outcome: 'unknown',
      status: 'unknown',
      handle,
      requestId: unknown.requestId,
      reason: unknown.message,
    })
    .catch((e) => deps.log.error('ledger update (unknown) failed', { ledger: rec.id, error: String(e) }));
  deps.log.warn('submission outcome unknown', { ledger: rec.id, requestId: unknown.requestId });
  return envelopeResult({
    status: 'unknown',
    handle,
    ...(kind ? { kind } : {}),
    ...(est ? { estimate: est } : {}),
    ...(unknown.requestId ? { request_id: unknown.requestId } : {}),
    reason: unknown.message,
    next_step: unknown.nextStep,
  });
}
