/**
 * Issue 28 item 5: a paid call held for approval as a 2026-07-28 task (SEP-2663). While pending the task is
 * `working` with "waiting for approval by … until …" (never `input_required`: the input is another person's);
 * approved, it follows the job to `completed`; declined, it is `completed` with the declined envelope as a
 * tool-level error. The held state is made as the write side makes it (see test/approvals/requester-views.test.ts);
 * tasks/get goes through a raw 2026 client against per-request servers on one store, as a fleet instance serves.
 */
import { GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approvalHandle, newApprovalId } from '../../src/approvals/handle.js';
import { storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { estimate } from '../../src/jobs/envelope.js';
import { createPoller, type Poller } from '../../src/jobs/poller.js';
import type { JobRecord } from '../../src/jobs/store.js';
import { createLogger } from '../../src/log.js';
import type { PeopleDirectory } from '../../src/people/people-file.js';
import { isRunning, TASKS_EXTENSION, taskIdFor, taskResult } from '../../src/protocol/tasks.js';
import { buildServer } from '../../src/server.js';
import { sweepOnce } from '../campaigns/sweep-once.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { getTask, type Json, pollTaskToEnd, type RawCaller, rawModernClient } from '../helpers/raw-modern-client.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const PEOPLE: PeopleDirectory = new Map([['token:lead', { name: 'Lena Lead', groups: [] }]]);
const ONE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Held task.' } }],
};
const WAITING = /^waiting for approval by Lena Lead \(token:lead\) until \d{4}-\d\d-\d\dT[\d:.]+Z$/;

let h: Harness | undefined;
let poller: Poller | undefined;
const handlers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of handlers.splice(0)) await x.close();
  poller?.close();
  poller = undefined;
  await h?.close();
  h = undefined;
});

/** Alice's one-item call admitted and held for Lena's approval; `caller(owner)` speaks for anyone on that store. */
async function heldCall() {
  h = await startHarness({
    era: 'modern',
    owner: 'token:alice',
    config: { people: PEOPLE },
    onPaidStep: (step) => {
      if (step === 'after_admit') throw new Error('stopped after the admission (test)');
    },
  });
  expect((await h.call('create_campaign', ONE)).isError).toBe(true);
  const [queued] = (await h.jobs.list({})).filter((r) => r.outcome === 'queued');
  const approvalId = newApprovalId();
  const handle = approvalHandle(approvalId);
  const item = (await h.jobs.claimItem(queued!.id, { held: { since: new Date().toISOString(), reason: handle } }))!;
  const now = Date.now();
  await h.jobs.createApproval({
    id: approvalId,
    requester: 'token:alice',
    tool: 'create_talking_video',
    request: {
      bundleId: item.campaign!.id,
      itemIds: [item.id],
      kind: 'call',
      estimate: estimate(item.estimate!.credits, 'the call'),
    },
    requirements: [{ rule: 'big spend', approvers: ['token:lead'], required: 1 }],
    approvers: ['token:lead'],
    rules: ['big spend'],
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  const log = createLogger('error', () => {});
  poller = createPoller({ client: h.platform, jobs: h.jobs, log, intervalMs: { min: 20, max: 20 } });
  const deps = { config: h.config, client: h.platform, jobs: h.jobs, poller, log };
  const caller = (owner: string): RawCaller => {
    const handler = createMcpHandler(() => buildServer({ ...deps, owner, perRequest: true }).server);
    handlers.push(handler);
    return rawModernClient((req) => handler.fetch(req), { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  };
  return { approvalId, handle, item, caller, deps };
}

async function decide(approvalId: string, item: JobRecord, decision: 'approve' | 'decline') {
  const desk = storeApprovalDesk(h!.jobs, {
    onDecided: async (_a, outcome) => {
      const patch =
        outcome.state === 'approved'
          ? { held: undefined }
          : { outcome: 'rejected' as const, status: 'failed' as const, reason: 'released: declined' };
      expect(await h!.jobs.claimItem(item.id, patch, 'held')).toBeDefined();
    },
  });
  expect((await desk.decideAs(approvalId, { id: 'token:lead', carrier: 'tool' }, decision)).ok).toBe(true);
}

function expectShape(schema: z.ZodType, value: unknown): void {
  const r = schema.safeParse(value);
  expect(r.success ? 'ok' : z.prettifyError(r.error)).toBe('ok');
}

describe('a call held for approval, as a 2026-07-28 task', () => {
  it('the approval_required answer becomes a working task saying who it waits for (not input_required)', async () => {
    const w = await heldCall();
    const env = { status: 'approval_required' as const, handle: w.handle, next_step: 'wait' };
    expect(isRunning(env)).toBe(true);
    const task = await taskResult(env, { ...w.deps, owner: 'token:alice' });
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    expect(task.statusMessage).toMatch(WAITING);
    expect(task.taskId).toBe(await taskIdFor(h!.jobs, 'token:alice', w.handle));
  }, 60_000);

  it('pending → working "waiting for approval by …"; approved → follows the job to completed; one POST', async () => {
    const w = await heldCall();
    const alice = w.caller('token:alice');
    const taskId = await taskIdFor(h!.jobs, 'token:alice', w.handle);
    const pending = await getTask(alice, taskId);
    expect(pending.error).toBeUndefined();
    expectShape(GetTaskResultV2Schema, pending.result);
    expect(pending.result).toMatchObject({ status: 'working', taskId });
    expect(pending.result!.statusMessage).toMatch(WAITING);

    // Someone the approval does not list gets "not found", even with a task id made for them.
    const bob = await getTask(w.caller('token:bob'), await taskIdFor(h!.jobs, 'token:bob', w.handle));
    expect(bob.error?.code).toBe(-32602);

    await decide(w.approvalId, w.item, 'approve');
    await sweepOnce(h!);
    const done = await pollTaskToEnd(alice, taskId);
    expect(done).toMatchObject({ status: 'completed', taskId });
    const result = done.result as Json;
    expect(result.isError).toBeUndefined();
    const final = result.structuredContent as { status: string; handle: string; outputs: unknown[] };
    expect(final.status).toBe('completed');
    expect(final.handle).toBe((await h!.jobs.get(w.item.id))!.handle);
    expect(final.outputs.length).toBeGreaterThan(0);
    expect(h!.sim.log.count(POSTS)).toBe(1);
  }, 60_000);

  it('declined → completed with the declined envelope as a tool error; nothing sent', async () => {
    const w = await heldCall();
    const alice = w.caller('token:alice');
    const taskId = await taskIdFor(h!.jobs, 'token:alice', w.handle);
    await decide(w.approvalId, w.item, 'decline');
    const r = await getTask(alice, taskId);
    expectShape(GetTaskResultV2Schema, r.result);
    expect(r.result).toMatchObject({
      status: 'completed',
      statusMessage: 'Declined by Lena Lead (token:lead); nothing was sent or charged.',
    });
    const result = r.result!.result as Json;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'declined', handle: w.handle });
    await sweepOnce(h!);
    expect(h!.sim.log.count(POSTS)).toBe(0);
  }, 60_000);
});
