/**
 * A paid call held for approval as an MCP task (SEP-2663; issue 28 item 5), the approval half of
 * src/protocol/tasks.ts. While the approval is pending the task stays `working` with the status message
 * "waiting for approval by … until …" — never `input_required`: the input awaited is another person's, which
 * this client cannot give. Once approved it follows what was sent (the call's job, or the campaign: `working`
 * while it runs, `completed` with the tool result at the end, a failure as `isError`). Declined or expired, it is
 * `completed` with the declined envelope as a tool-level error (`isError`): the extension reserves `failed` for
 * JSON-RPC errors, and a failed job is reported the same way.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { NameOf } from '../approvals/wording.js';
import { UserInputError } from '../errors.js';
import { approvalFor, envelopeOfApproval, waitingText } from '../jobs/approval-view.js';
import type { Poller } from '../jobs/poller.js';
import type { JobStore } from '../jobs/store.js';
import { envelopeResult } from '../result.js';

export interface ApprovalTaskState {
  status: 'working' | 'completed';
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: CallToolResult & { resultType: 'complete' };
}

/**
 * The approval's task as it stands, or undefined when this caller may not see it (the caller answers "task not
 * found", as for a forged id).
 */
export async function approvalTaskState(
  handle: string,
  deps: { jobs: JobStore; poller: Poller; owner?: string | undefined; nameOf?: NameOf | undefined; now?: () => number },
): Promise<ApprovalTaskState | undefined> {
  let a: Awaited<ReturnType<typeof approvalFor>>;
  try {
    a = await approvalFor(deps.jobs, deps.owner, handle, 'taskId');
  } catch (err) {
    if (err instanceof UserInputError) return undefined;
    throw err;
  }
  const now = (deps.now ?? Date.now)();
  const env = await envelopeOfApproval({ ...deps, owner: deps.owner }, a, 'taskId');
  const times = {
    createdAt: new Date(a.createdAt).toISOString(),
    lastUpdatedAt: new Date(Math.max(a.createdAt, a.closedAt ?? 0, ...a.decisions.map((d) => d.at))).toISOString(),
  };
  if (env.status === 'approval_required') {
    return { status: 'working', statusMessage: waitingText(a, now, deps.nameOf), ...times };
  }
  if (env.status === 'submitted' || env.status === 'processing') {
    return { status: 'working', statusMessage: `approved; ${env.next_step}`, ...times };
  }
  const isError = env.status !== 'completed';
  return {
    status: 'completed',
    statusMessage: isError ? (env.reason ?? env.next_step) : env.next_step,
    ...times,
    result: { resultType: 'complete', ...envelopeResult(env), ...(isError ? { isError: true } : {}) },
  };
}
