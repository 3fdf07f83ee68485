/**
 * Turns tool specs into registered MCP tools: the SDK glue (style.md 2.2). Toolset / read-only filtering,
 * strict input schemas, the per-call context (progress notifications), the elicitation form, and
 * result → `CallToolResult`. A billable call runs through `paid/pipeline.ts` (validate → request →
 * estimate → consent → `store.admit` → one POST → `store.settle`), which imports nothing from the SDK.
 * Nothing throws out of a handler: a platform failure never crashes the server.
 */

import type { CallToolResult, McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { OnDecided } from './approvals/store-desk.js';
import { confirmMeta, toolUiMeta } from './apps/link.js';
import { type Access, scopeChallengeFor } from './auth/scopes.js';
import type { Catalog } from './catalog.js';
import type { PlatformClient } from './client/types.js';
import type { Config } from './config.js';
import type { PaidToolSpec, ReadToolSpec, ToolAnnotations, ToolContext, ToolSpec } from './define-tool.js';
import type { FileServices } from './files/file-services.js';
import { filesDeps } from './files/files-deps.js';
import { checkArgumentDepth } from './guards/depth.js';
import { JobEnvelopeShape } from './jobs/envelope.js';
import type { Poller } from './jobs/poller.js';
import type { JobStore } from './jobs/store.js';
import type { PaidStep } from './kill-steps.js';
import type { Logger } from './log.js';
import type { CallbackUrlMaker } from './paid/callback.js';
import { runPaidCall, stepReached } from './paid/pipeline.js';
import type { PersonLabel } from './people/directory.js';
import { askWithForm, formCarrierFor, pushForm, readFormRound, type ToolAnswer } from './protocol/consent-form.js';
import { portableInputSchema, portableSchema } from './protocol/portable-schema.js';
import type { ConsentStateCodec } from './protocol/request-state.js';
import { rootsOf } from './protocol/roots.js';
import { withSlackBlocks } from './protocol/slack-results.js';
import { followWhileOpen } from './protocol/task-follow.js';
import { clientWantsTasks, isRunning, taskResult } from './protocol/tasks.js';
import { envelopeResult, readResult, toolError } from './result.js';
import { metrics } from './telemetry/metrics.js';
import { errorOutcome, markOutcome, outcomeOf } from './telemetry/metrics-outcome.js';
import { inToolSpan } from './telemetry/tool-span.js';
import { transportOf, visibleSpecs } from './tool-visibility.js';

export interface RuntimeDeps {
  config: Config;
  client: PlatformClient;
  jobs: JobStore;
  catalog: Catalog;
  poller: Poller;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio. */
  owner?: string | undefined;
  /** HTTP mode: what the credential may do (src/auth/scopes.ts); undefined on stdio (spend). */
  access?: Access | undefined;
  /** HTTP mode: who the caller is (name, e-mail, groups) for messages people read; undefined on stdio. */
  person?: PersonLabel | undefined;
  /** ms since epoch; injectable so tests can expire tokens and move days without sleeping. */
  now?: () => number;
  /** Confirmation-token lifetime (default `TOKEN_TTL_MS`, 10 min). */
  tokenTtlMs?: number;
  /** Test hook: called at each named step of a paid call (src/kill-steps.ts). */
  onPaidStep?: ((step: PaidStep) => void) | undefined;
  /** Signs the 2026-07-28 confirmation form's `requestState` (also the server's verify hook). */
  consentState: ConsentStateCodec;
  /** HTTP mode with a public URL: our per-job callback URL, added at send time (src/paid/callback.ts). */
  callbackUrl?: CallbackUrlMaker | undefined;
  /** HTTP mode: uploads, the self stager and upload links (src/files/file-services.ts); stdio has none. */
  files?: FileServices | undefined;
  /** What a decision that closes an approval sets off (`ToolContext.onApprovalDecided`). */
  onApprovalDecided?: OnDecided | undefined;
  /** Follows every open job of this caller until the returned release (src/jobs/follower.ts; issue 29 item 2). */
  follow?: (() => () => void) | undefined;
}

type Extra = ServerContext;
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
  confirmation_token: z.string().optional().describe('once approved'),
  allow_duplicate: z.boolean().optional().describe('approved repeat'),
};

/**
 * A tool's full input schema, every rule included (the server validates with it). Strict: an unknown or misspelt
 * argument is refused (naming it) instead of silently dropped. tools/list shows its portable view
 * (src/protocol/portable-schema.ts), which leaves some rules to this schema and its error messages.
 */
export function toolInput(spec: ToolSpec) {
  return z.strictObject(spec.billable ? { ...spec.input, ...GUARD_INPUT } : spec.input);
}

/**
 * A spec's input and output schemas as registered, built once per spec: stateless HTTP registers every tool on a
 * fresh server for each request, and the schemas never change.
 */
const wireSchemaCache = new WeakMap<ToolSpec, { inputSchema: z.ZodObject; outputSchema: z.ZodObject }>();
function wireSchemas(spec: ToolSpec) {
  let built = wireSchemaCache.get(spec);
  if (!built) {
    built = {
      inputSchema: portableInputSchema(toolInput(spec)),
      outputSchema: portableSchema(z.object((spec.billable ? JobEnvelopeShape : spec.output) as z.ZodRawShape)),
    };
    wireSchemaCache.set(spec, built);
  }
  return built;
}

/**
 * Registers the visible specs on `server`.
 * @throws Error when two specs share a name (a programming error, caught by the registry test).
 */
export function registerTools(server: McpServer, specs: ToolSpec[], deps: RuntimeDeps): RegisteredTool[] {
  const out: RegisteredTool[] = [];
  for (const spec of visibleSpecs(specs, deps.config, transportOf(deps))) {
    const billable = spec.billable !== undefined;
    if (billable && JSON.stringify(spec.annotations) !== JSON.stringify(BILLABLE_ANNOTATIONS)) {
      deps.log.warn(`tool ${spec.name}: billable tools always use the billable annotations; the spec's were replaced`);
    }
    const config = {
      title: spec.title,
      description: spec.description,
      ...wireSchemas(spec),
      annotations: { title: spec.title, ...(billable ? BILLABLE_ANNOTATIONS : spec.annotations) },
      // MCP Apps: which View (ui://) renders this tool's results (src/apps/link.ts).
      _meta: toolUiMeta(spec),
      // HTTP: a read-only credential is refused a paid tool by the SDK (403 insufficient_scope) before any work; a
      // quote-only one gets the quote and nothing more (src/paid/guard.ts). Deciding an approval lets money be spent,
      // so it needs the spend scope.
      scopeChallenge: scopeChallengeFor(spec.toolset === 'approvals' ? 'spend' : billable ? 'quote' : 'read'),
    };
    // The call's server span (traces) around its answer; the answer counts itself (metrics). Both no-ops when off.
    const handler = (args: Args, extra: Extra): Promise<ToolAnswer> =>
      inToolSpan(spec.name, server, extra, () => answer(args, extra));
    const answer = async (args: Args, extra: Extra): Promise<ToolAnswer> => {
      const started = performance.now();
      try {
        // Before any tool code walks the arguments: a walk over a very deep value would overflow the stack.
        checkArgumentDepth(args);
        const result = spec.billable
          ? await runBillable(server, spec as PaidToolSpec, args, extra, deps)
          : await runRead(spec as ReadToolSpec<z.ZodRawShape, z.ZodRawShape>, args, extra, deps);
        metrics.toolCall(spec.name, outcomeOf(result), (performance.now() - started) / 1000);
        // A Slack Block Kit client also gets the answer as blocks (paid and job tools only).
        return withSlackBlocks(server, extra, spec.name, billable, result, deps.log);
      } catch (err) {
        metrics.toolCall(spec.name, errorOutcome(err), (performance.now() - started) / 1000);
        return toolError(err, deps.log);
      }
    };
    out.push(server.registerTool(spec.name, config, handler as never));
  }
  return out;
}

/** The per-call context handed to `validate`, `estimate` and `run`. */
function makeContext(extra: Extra, deps: RuntimeDeps): ToolContext {
  const token = extra.mcpReq._meta?.progressToken;
  let last = Number.NEGATIVE_INFINITY;
  return {
    config: deps.config,
    client: deps.client,
    jobs: deps.jobs,
    catalog: deps.catalog,
    poller: deps.poller,
    log: deps.log,
    signal: extra.mcpReq.signal,
    owner: deps.owner,
    ...(deps.person ? { person: deps.person } : {}),
    ...(deps.files ? { files: deps.files } : {}),
    ...(deps.onApprovalDecided ? { onApprovalDecided: deps.onApprovalDecided } : {}),
    async progress(p) {
      // Only when the client asked (it sent a token), and strictly increasing as the spec requires.
      if (token === undefined || !(p.progress > last)) return;
      last = p.progress;
      try {
        await extra.mcpReq.notify({
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

/**
 * The billable path. `carrier` says who presented a confirmation token: `human` only from the App's Confirm
 * click (src/apps/confirm-tool.ts, an app-only tool); every model call is `model`.
 */
export async function runBillable(
  server: McpServer,
  spec: PaidToolSpec,
  args: Args,
  extra: Extra,
  deps: RuntimeDeps,
  carrier: 'model' | 'human' = 'model',
): Promise<ToolAnswer> {
  const { confirmation_token, allow_duplicate, ...input } = args;
  // A Confirm click is itself the person's answer: no form on top of it.
  const form = carrier === 'human' ? undefined : formCarrierFor(server, extra, deps.config);
  // stdio only: over HTTP a local path would name the server's disk, not the caller's.
  const declaredRoots = deps.owner === undefined ? rootsOf(server) : undefined;
  const roots = filesDeps(deps.config, { roots: declaredRoots }).roots;
  const result = await runPaidCall(
    spec,
    {
      input,
      token: typeof confirmation_token === 'string' ? confirmation_token : undefined,
      allowDuplicate: allow_duplicate === true,
      carrier,
      elicit: form === 'push' ? pushForm(extra, deps.config, deps.log) : undefined,
      form: form === 'mrtr' ? readFormRound(extra) : undefined,
    },
    { ...makeContext(extra, deps), localRoots: roots },
    {
      config: deps.config,
      jobs: deps.jobs,
      log: deps.log,
      owner: deps.owner,
      access: deps.access ?? 'spend',
      ownerLabel: deps.person,
      teams: deps.person?.groups,
      now: deps.now ?? Date.now,
      tokenTtlMs: deps.tokenTtlMs,
      onStep: deps.onPaidStep ?? stepReached(deps.config.testKillAt),
      callbackUrl: deps.callbackUrl,
      uploads: deps.files?.uploads,
      selfStager: deps.files?.selfStager,
      // stdio only: over HTTP a local path would name the server's disk, not the caller's.
      roots: declaredRoots,
    },
  );
  if ('error' in result) return markOutcome(toolError(result.error, deps.log), result.error);
  if ('askForm' in result) {
    const { message, envelope } = result.askForm;
    return askWithForm(message, envelope.confirmation_token as string, deps.consentState, extra);
  }
  const env = result.envelope;
  // A running job becomes an MCP task for a client that takes them (not for the App's Confirm click: the
  // View reads the envelope). Consent and the one POST are already behind us: polling a task sends no POST.
  // A campaign too: its task reports "k of N done" and completes when every item is final (protocol/campaign-task.ts).
  const fresh = !('repeat' in result);
  if (carrier === 'model' && fresh && isRunning(env) && clientWantsTasks(server, extra)) {
    // While the task is open its owner's jobs are followed: it moves with nobody polling tasks/get (issue 29).
    if (deps.follow) followWhileOpen(env.handle, { ...deps, follow: deps.follow });
    return taskResult(env, deps);
  }
  if (env.status !== 'confirmation_required') return envelopeResult(env);
  // The App's consent card needs the call to redeem: tool and arguments ride in `_meta`, not the envelope.
  const note = spec.billable.quoteNote?.(input as never);
  const envelope = note ? { ...env, next_step: `${env.next_step} ${note}` } : env;
  const card = 'card' in result ? result.card : undefined;
  return { ...envelopeResult(envelope), _meta: confirmMeta(spec.name, args, envelope, card) };
}
