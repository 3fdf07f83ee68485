/**
 * A create_campaign answer as an MCP task (SEP-2663; src/protocol/campaign-task.ts, issue 21 item 4), through the
 * raw 2026-07-28 client of test/protocol/tasks.test.ts over the SDK's own `createMcpHandler(...).fetch` (a fresh
 * server per request, one shared store and poller): the call answers a task, `tasks/get` reports "k of N done"
 * while items run and completes with the campaign's envelope once every item is final; each item POSTed once;
 * another caller's tasks/get gets "task not found". Checked against the extension's wire schemas.
 */
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPoller, type Poller } from '../../src/jobs/poller.js';
import { createLogger } from '../../src/log.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { buildServer } from '../../src/server.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import {
  callToolRaw,
  getTask,
  type Json,
  pollTaskToEnd,
  type RawCaller,
  rawModernClient,
} from '../helpers/raw-modern-client.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const THREE = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'A task of three.' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus', 'av_lucia'] },
};

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

/** Raw 2026-07-28 callers by HTTP owner, every one declaring the tasks extension; one store and poller. */
async function start() {
  h = await startHarness({ era: 'modern', config: { confirm: { mode: 'never' }, maxCreditsPerDay: 10_000 } });
  const log = createLogger('error', () => {});
  poller = createPoller({ client: h.platform, jobs: h.jobs, log, intervalMs: { min: 20, max: 20 } });
  const deps = { config: h.config, client: h.platform, jobs: h.jobs, poller, log };
  return (owner: string): RawCaller => {
    const handler = createMcpHandler(() => buildServer({ ...deps, owner, perRequest: true }).server);
    handlers.push(handler);
    return rawModernClient((req) => handler.fetch(req), { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  };
}

function expectShape(schema: z.ZodType, value: unknown): void {
  const r = schema.safeParse(value);
  expect(r.success ? 'ok' : z.prettifyError(r.error)).toBe('ok');
}

describe('create_campaign as an MCP task', () => {
  it('answers a task; tasks/get says k of N done, then completes with the campaign view; N POSTs', async () => {
    const caller = await start();
    const alice = caller('alice');
    h!.sim.jobs.scriptNext({ durationMs: 600_000 }, 3);
    const created = await callToolRaw(alice, 'create_campaign', THREE);
    expect(created.error).toBeUndefined();
    const task = created.result!;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
    expectShape(CreateTaskResultV2Schema, task);
    const env = task.structuredContent as Json;
    expect(env.handle).toMatch(/^campaign:/);

    // While the items run: working, "k of 3 done".
    const running = await getTask(alice, task.taskId as string);
    expectShape(GetTaskResultV2Schema, running.result);
    expect(running.result).toMatchObject({ status: 'working', taskId: task.taskId });
    expect(running.result!.statusMessage).toMatch(/^0 of 3 done$/);

    for (let i = 0; i < 500 && h!.sim.log.count(POSTS) < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h!.sim.log.count(POSTS)).toBe(3);
    for (const j of h!.sim.jobs.all()) j.finishAt = Date.now();

    const done = await pollTaskToEnd(alice, task.taskId as string, {
      check: (r) => expectShape(GetTaskResultV2Schema, r),
    });
    expect(done).toMatchObject({ status: 'completed', taskId: task.taskId });
    const result = done.result as Json;
    expect(result.isError).toBeUndefined();
    const final = result.structuredContent as {
      status: string;
      handle: string;
      details: { campaign: { progress: string; items: { status: string; outputs: unknown[] }[] } };
    };
    expect(final.handle).toBe(env.handle);
    expect(final.status).toBe('completed');
    expect(final.details.campaign.progress).toBe('3 of 3 done');
    expect(final.details.campaign.items.every((i) => i.status === 'completed' && i.outputs.length > 0)).toBe(true);
    // Polling never submits again.
    expect(h!.sim.log.count(POSTS)).toBe(3);

    // Another caller: the answer an unknown id gets.
    const bob = caller('bob');
    const stolen = await getTask(bob, task.taskId as string);
    const garbage = await getTask(bob, 'not-a-task');
    expect(stolen.result).toBeUndefined();
    expect(stolen.error?.code).toBe(-32602);
    expect(stolen.error).toEqual(garbage.error);
  });
});
