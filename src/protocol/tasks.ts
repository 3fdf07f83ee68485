/**
 * MCP tasks (`io.modelcontextprotocol/tasks`, SEP-2663) for long paid jobs: our whole server side of the
 * extension, in one module, until the SDK ships its own runtime (draft typescript-sdk#2782) and replaces it.
 *
 * Who gets a task: a 2026-07-28 client that declared the extension on the request. After consent and the
 * single POST, a billable call whose job is running answers `resultType: 'task'` instead of the job envelope
 * (the envelope still rides in `structuredContent`: SDK 2.4 turns a result without it into a tool error for
 * a tool with an output schema, mcp-notes 6.1). Everything else (a quote, a refusal, an error, any client
 * without the extension, any 2025-era client) answers exactly as before; `wait_for_jobs` stays for them.
 * 2025-era clients are left out on purpose: SEP-2663 is defined on 2026-07-28 (per-request capabilities),
 * and 2025-11-25's own tasks are a different, client-directed mechanism that SDK v2 removed.
 *
 * Nothing is kept in memory, so any instance of a fleet answers `tasks/get`: the task id carries the job's
 * handle and an HMAC over (caller, handle) keyed from the store's consent key. Another caller's id, a forged
 * one and an unknown one all get the same "task not found" (-32602, as the extension requires).
 * `tasks/get` reads the job through the shared poller (so at most one platform read per poll interval,
 * whoever polls) and maps it: processing → working, completed or failed → completed with the tool result
 * inline (a failed job is a tool-level error, `isError: true`; the extension reserves `failed` for JSON-RPC
 * errors). `tasks/cancel` stops nothing: the platform has no cancel and a charge is final. It acknowledges
 * (cancellation is cooperative in the extension) and answers the task as it stands, with a status message
 * saying the job keeps running and where its result will be. A create_campaign answer is a task too: its id
 * carries `campaign:<id>` and src/protocol/campaign-task.ts reports "k of N done" until every item is final.
 */
import {
  type CallToolResult,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { UserInputError } from '../errors.js';
import { isApprovalHandle, nameOfPeople } from '../jobs/approval-view.js';
import { isCampaignHandle } from '../jobs/campaign-view.js';
import type { JobEnvelope } from '../jobs/envelope.js';
import { decodeHandle, MAX_HANDLE_LENGTH } from '../jobs/handle.js';
import { resolveJob } from '../jobs/owner.js';
import { DEFAULT_INTERVAL_MS, type Poller } from '../jobs/poller.js';
import { viewEnvelope } from '../jobs/status.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';
import type { PeopleDirectory } from '../people/people-file.js';
import { envelopeResult } from '../result.js';
import { open, sign } from '../signer.js';
import { approvalTaskState } from './approval-task.js';
import { campaignTaskState } from './campaign-task.js';
import { clientCapabilities, isModern } from './era.js';
import { TASKS_EXTENSION } from './tasks-capability.js';

export { TASKS_CAPABILITY, TASKS_EXTENSION } from './tasks-capability.js';

/**
 * The poller never reads a job more often than its minimum interval (spec "Limits": 5-10 s), so polling a
 * task faster only returns the same view again.
 */
export const TASK_POLL_INTERVAL_MS = DEFAULT_INTERVAL_MS.min;

const ID_PREFIX = 'gt1';
/** 128 bits of HMAC: unguessable, and short enough for an `Mcp-Name` header. */
const MAC_BYTES = 16;
/** A base64url handle of the longest handle, plus prefix and MAC, with room to spare. */
const MAX_TASK_ID_LENGTH = Math.ceil((MAX_HANDLE_LENGTH * 4) / 3) + 64;

const NOT_FOUND = 'Failed to retrieve task: Task not found';

export interface TaskDeps {
  jobs: JobStore;
  poller: Poller;
  log: Logger;
  /** HTTP mode: the authenticated caller; undefined on stdio (the operator, who owns every job). */
  owner?: string | undefined;
  now?: () => number;
  /** The people file (GENPLAT_PEOPLE), for the names in "waiting for approval by …". */
  config?: { people: PeopleDirectory };
}

type TaskStatus = 'working' | 'completed';

/** SEP-2663 `Task` (the fields every task answer carries). */
type TaskFields = {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** null = unlimited: job records are never pruned from the store, so the task answers as long as it does. */
  ttlMs: number | null;
  pollIntervalMs: number;
};

/** Whether this request's client may be answered with a task (a 2026-07-28 client that declared the extension). */
export function clientWantsTasks(server: McpServer, ctx: ServerContext): boolean {
  if (!isModern(server)) return false;
  // With the request's context: under serveStdio only the envelope carries a 2026 client's capabilities.
  const extensions = clientCapabilities(server, ctx)?.extensions as Record<string, unknown> | undefined;
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** The task id of `handle` for this caller: `gt1.<handle, base64url>.<MAC>` (the one signer, bound to the caller). */
export async function taskIdFor(jobs: JobStore, owner: string | undefined, handle: string): Promise<string> {
  const payload = `${ID_PREFIX}.${Buffer.from(handle).toString('base64url')}`;
  return sign(await jobs.consentKey(), 'task-id', payload, { bind: owner ?? '', macBytes: MAC_BYTES });
}

/** The handle a task id names for this caller, or undefined when the id is not one we gave this caller. */
async function handleOf(jobs: JobStore, owner: string | undefined, taskId: string): Promise<string | undefined> {
  const payload = open(await jobs.consentKey(), 'task-id', taskId, { bind: owner ?? '', macBytes: MAC_BYTES });
  const [prefix, encoded, ...rest] = payload?.split('.') ?? [];
  if (prefix !== ID_PREFIX || !encoded || rest.length > 0) return undefined;
  return Buffer.from(encoded, 'base64url').toString();
}

/**
 * A job still running on the platform, or a call held for another person's approval (issue 28 item 5): the only
 * answers that become a task.
 */
export function isRunning(env: JobEnvelope): env is JobEnvelope & { handle: string } {
  if (typeof env.handle !== 'string') return false;
  if (env.status === 'approval_required') return isApprovalHandle(env.handle);
  return env.status === 'submitted' || env.status === 'processing';
}

/** The approval task's deps: the names from the people file. */
function approvalDeps(deps: TaskDeps) {
  return { ...deps, ...(deps.config ? { nameOf: nameOfPeople(deps.config) } : {}) };
}

function runningMessage(env: JobEnvelope): string {
  const note = typeof env.details?.note === 'string' ? ` (${env.details.note})` : '';
  return `${env.kind ?? 'the'} job is ${env.status} on the platform${note}`;
}

/**
 * The answer of a billable call that started a job, for a client that takes tasks. The job's record exists
 * (admit wrote it before the POST, settle gave it the handle), so `tasks/get` resolves from the first poll,
 * as the extension requires.
 */
export async function taskResult(env: JobEnvelope & { handle: string }, deps: TaskDeps) {
  if (isApprovalHandle(env.handle)) {
    // Held for approval: `working` with "waiting for approval by …" (not input_required: the input is another person's).
    const state = await approvalTaskState(env.handle, approvalDeps(deps));
    const now = new Date((deps.now ?? Date.now)()).toISOString();
    return {
      resultType: 'task' as const,
      taskId: await taskIdFor(deps.jobs, deps.owner, env.handle),
      status: 'working' as const,
      statusMessage: state?.statusMessage ?? env.next_step,
      createdAt: state?.createdAt ?? now,
      lastUpdatedAt: state?.lastUpdatedAt ?? now,
      ttlMs: null,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      ...envelopeResult(env),
    };
  }
  if (isCampaignHandle(env.handle)) {
    // A campaign: its items' records exist (admitted together before any POST), so tasks/get resolves at once.
    const state = await campaignTaskState(env.handle, deps);
    const now = new Date((deps.now ?? Date.now)()).toISOString();
    return {
      resultType: 'task' as const,
      taskId: await taskIdFor(deps.jobs, deps.owner, env.handle),
      status: 'working' as const,
      statusMessage: state?.statusMessage ?? 'the campaign is starting',
      createdAt: state?.createdAt ?? now,
      lastUpdatedAt: state?.lastUpdatedAt ?? now,
      ttlMs: null,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      ...envelopeResult(env),
    };
  }
  const ref = decodeHandle(env.handle);
  const rec = ref ? await deps.jobs.getByRef(ref) : undefined;
  const now = new Date((deps.now ?? Date.now)()).toISOString();
  const task: TaskFields = {
    taskId: await taskIdFor(deps.jobs, deps.owner, env.handle),
    status: 'working',
    statusMessage: runningMessage(env),
    createdAt: rec?.createdAt ?? now,
    lastUpdatedAt: rec?.updatedAt ?? now,
    ttlMs: null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
  return { resultType: 'task' as const, ...task, ...envelopeResult(env) };
}

/** The task as it stands now: one read through the shared poller. */
async function currentTask(taskId: string, deps: TaskDeps): Promise<TaskFields & { result?: object }> {
  const handle = await handleOf(deps.jobs, deps.owner, taskId);
  if (handle !== undefined && isApprovalHandle(handle)) {
    const state = await approvalTaskState(handle, approvalDeps(deps));
    if (!state) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_FOUND);
    return { taskId, ttlMs: null, pollIntervalMs: TASK_POLL_INTERVAL_MS, ...state };
  }
  if (handle !== undefined && isCampaignHandle(handle)) {
    const state = await campaignTaskState(handle, deps);
    if (!state) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_FOUND);
    return { taskId, ttlMs: null, pollIntervalMs: TASK_POLL_INTERVAL_MS, ...state };
  }
  const ref = handle === undefined ? undefined : decodeHandle(handle);
  if (!ref) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_FOUND);
  let job: Awaited<ReturnType<typeof resolveJob>>;
  try {
    job = await resolveJob(deps.jobs, deps.owner, ref, 'taskId');
  } catch (err) {
    // Another caller's job (the MAC already binds the caller; this is the ledger's word on it too).
    if (err instanceof UserInputError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_FOUND);
    throw err;
  }
  // Tasks are only ever made for a recorded paid job: no record, no task.
  if (!job.rec) throw new ProtocolError(ProtocolErrorCode.InvalidParams, NOT_FOUND);
  const { view } = await deps.poller.read(job.ref);
  const rec = (await deps.jobs.getByRef(job.ref)) ?? job.rec;
  const env = viewEnvelope(job.handle ?? handle, job.ref, view, rec);
  const base = {
    taskId,
    createdAt: rec.createdAt,
    lastUpdatedAt: rec.updatedAt,
    ttlMs: null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
  if (view.status === 'processing') return { ...base, status: 'working', statusMessage: runningMessage(env) };
  // Terminal (or unreadable: the platform no longer knows the id): the tool's own answer, inline. A failed job
  // is a tool-level error, which the extension reports as `completed` with `isError`, never as `failed`.
  const isError = view.status !== 'completed';
  const result: CallToolResult & { resultType: 'complete' } = {
    resultType: 'complete',
    ...envelopeResult(env),
    ...(isError ? { isError: true } : {}),
  };
  return {
    ...base,
    status: 'completed',
    statusMessage: isError ? `the job ended ${view.status}: ${env.next_step}` : 'the job completed',
    result,
  };
}

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(MAX_TASK_ID_LENGTH) });

/**
 * `tasks/get` and `tasks/cancel`, registered with explicit param schemas (the SDK serves those two names on
 * the 2026-07-28 era only when their handlers bring their own schema).
 */
export function registerTaskHandlers(server: McpServer, deps: TaskDeps): void {
  const requireExtension = (ctx: ServerContext) => {
    // The extension requires -32021 for a client that did not declare it on this request.
    if (!clientWantsTasks(server, ctx)) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
  };
  server.server.setRequestHandler('tasks/get', { params: TaskParams }, async (params, ctx) => {
    requireExtension(ctx);
    return currentTask(params.taskId, deps);
  });
  server.server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, ctx) => {
    requireExtension(ctx);
    const task = await currentTask(params.taskId, deps);
    if (task.status !== 'working') return task;
    deps.log.info('tasks/cancel: a paid job cannot be cancelled; it keeps running', { taskId: params.taskId });
    // An acknowledgement (the extension's cancel is cooperative) that says what happens instead.
    return {
      ...task,
      statusMessage:
        'Not cancelled: the platform cannot stop a started job and its charge is final. It keeps running; keep polling tasks/get (or call get_job) for its result.',
    };
  });
}
