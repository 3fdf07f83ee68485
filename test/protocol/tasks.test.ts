/**
 * MCP tasks (`io.modelcontextprotocol/tasks`, SEP-2663; src/protocol/tasks.ts). The v2 SDK client refuses a
 * `resultType: 'task'` answer (mcp-notes 6), so the tasks client here is a minimal raw JSON-RPC one
 * (test/helpers/raw-modern-client.ts, shared with the HTTP fleet test) over the SDK's own `createMcpHandler(...).fetch`, served in process exactly as a fleet instance serves it (a
 * fresh server per request, one shared store and poller): what it sends is what a 2026-07-28 client sends
 * (the per-request `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers). Each request may be served
 * by another instance: nothing but the store links a task's polls to its creation.
 *
 * Every task answer is also checked against the extension's own wire schemas (`@modelcontextprotocol/ext-tasks`
 * core/v2, a pinned devDependency), so "our client accepts it" is not the only judge of the shape.
 *
 * The 2025-era check goes through the harness's real SDK client (in-memory pair).
 */
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPoller, type Poller } from '../../src/jobs/poller.js';
import { createLogger } from '../../src/log.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { buildServer } from '../../src/server.js';
import { billableExample } from '../helpers/examples.js';
import { type Harness, type HarnessOptions, startHarness, structured } from '../helpers/harness.js';
import {
  callToolRaw,
  getTask,
  type Json,
  pollTaskToEnd,
  type RawCaller,
  rawModernClient,
} from '../helpers/raw-modern-client.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;

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

/**
 * Starts the sim + store (through the harness) and returns a factory of raw callers: each has its own HTTP
 * owner and may or may not declare the tasks extension. Every caller's server shares the store and poller.
 */
async function start(opts: HarnessOptions = {}) {
  h = await startHarness({ era: 'modern', ...opts });
  const log = createLogger('error', () => {});
  poller = createPoller({ client: h.platform, jobs: h.jobs, log, intervalMs: { min: 20, max: 20 } });
  const deps = { config: h.config, client: h.platform, jobs: h.jobs, poller, log };
  return (owner: string | undefined, withTasks = true, extra: Json = {}): RawCaller => {
    const handler = createMcpHandler(
      () => buildServer({ ...deps, ...(owner !== undefined ? { owner } : {}), perRequest: true }).server,
    );
    handlers.push(handler);
    const capabilities = { ...extra, ...(withTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) };
    return rawModernClient((req) => handler.fetch(req), { capabilities });
  };
}

/** Fails with the schema's own message when `value` is not a valid instance (toBe(true) would hide why). */
function expectShape(schema: z.ZodType, value: unknown): void {
  const r = schema.safeParse(value);
  expect(r.success ? 'ok' : z.prettifyError(r.error)).toBe('ok');
}

type Caller = RawCaller;

const callTool = (c: Caller, args: Json) => callToolRaw(c, TOOL, args);
const pollToEnd = (c: Caller, taskId: string) =>
  pollTaskToEnd(c, taskId, { check: (r) => expectShape(GetTaskResultV2Schema, r) });

describe('a 2026-07-28 client that declares the tasks extension', () => {
  it('creates a talking video as a task and polls tasks/get to completed with the output; one POST', async () => {
    const caller = await start();
    const alice = caller('alice');
    const args = billableExample(TOOL).args(h!.sim);
    const created = await callTool(alice, args);
    expect(created.error).toBeUndefined();
    const task = created.result!;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
    expectShape(CreateTaskResultV2Schema, task);
    expect(typeof task.taskId).toBe('string');
    expect(typeof task.createdAt).toBe('string');
    expect(typeof task.lastUpdatedAt).toBe('string');
    expect(task.pollIntervalMs).toBeGreaterThan(0);
    // The envelope still rides along (SDK 2.4 requires structuredContent for a tool with an output schema).
    const env = task.structuredContent as Json;
    expect(env.status).toBe('submitted');
    expect(env.handle).toMatch(/^actor_video:/);
    expect(h!.sim.log.count(POSTS)).toBe(1);

    const done = await pollToEnd(alice, task.taskId as string);
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed', taskId: task.taskId });
    const result = done.result as Json;
    expect(result.resultType).toBe('complete');
    expectShape(CallToolResultV2Schema, result);
    expect(result.isError).toBeUndefined();
    const final = result.structuredContent as { status: string; handle: string; outputs: { url: string }[] };
    expect(final.status).toBe('completed');
    expect(final.handle).toBe(env.handle);
    expect(final.outputs.length).toBeGreaterThan(0);
    expect(final.outputs[0]!.url).toMatch(/^http/);
    const links = (result.content as { type: string; uri?: string }[]).filter((b) => b.type === 'resource_link');
    expect(links.map((l) => l.uri)).toContain(final.outputs[0]!.url);
    // Polling never submits again.
    expect(h!.sim.log.count(POSTS)).toBe(1);

    // Another instance (a fresh handler on the same store) answers the same task the same way.
    const again = await getTask(caller('alice'), task.taskId as string);
    expect(again.result).toMatchObject({ status: 'completed', taskId: task.taskId });
  });

  it("another caller's tasks/get gets the answer an unknown id gets", async () => {
    const caller = await start();
    const created = await callTool(caller('alice'), billableExample(TOOL).args(h!.sim, 1));
    const taskId = created.result!.taskId as string;

    const bob = caller('bob');
    const stolen = await getTask(bob, taskId);
    const unknown = await getTask(bob, `${taskId.slice(0, -4)}AAAA`);
    const garbage = await getTask(bob, 'not-a-task');
    expect(stolen.result).toBeUndefined();
    expect(stolen.error?.code).toBe(-32602);
    expect(stolen.error).toEqual(unknown.error);
    expect(stolen.error).toEqual(garbage.error);
    // Nor can bob cancel it.
    const cancel = await bob('tasks/cancel', { taskId }, taskId);
    expect(cancel.error).toEqual(stolen.error);
    // Alice still can.
    expect((await getTask(caller('alice'), taskId)).result?.taskId).toBe(taskId);
  });

  it('tasks/cancel leaves the paid job running, sends nothing, and says so', async () => {
    const caller = await start();
    const alice = caller('alice');
    // A job that stays processing for the whole test: the cancel meets a running job.
    h!.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = await callTool(alice, billableExample(TOOL).args(h!.sim, 2));
    const taskId = created.result!.taskId as string;
    const before = h!.sim.log.entries().length;

    const cancel = await alice('tasks/cancel', { taskId }, taskId);
    expect(cancel.error).toBeUndefined();
    expect(cancel.result).toMatchObject({ resultType: 'complete', status: 'working', taskId });
    expect(cancel.result?.statusMessage).toMatch(/Not cancelled/);
    expectShape(CancelTaskResultV2Schema, cancel.result);

    const after = await getTask(alice, taskId);
    expect(after.result).toMatchObject({ status: 'working', taskId });
    // Only status reads reached the platform: no cancel, no second POST.
    const sent = h!.sim.log.entries().slice(before);
    expect(sent.filter((e) => e.method !== 'GET')).toEqual([]);
    expect(h!.sim.log.count(POSTS)).toBe(1);
  });

  it('a failed job completes the task with an isError result (`failed` is for JSON-RPC errors only)', async () => {
    const caller = await start();
    const alice = caller('alice');
    h!.sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'script rejected by moderation' } });
    const created = await callTool(alice, billableExample(TOOL).args(h!.sim, 3));
    const done = await pollToEnd(alice, created.result!.taskId as string);
    expect(done.status).toBe('completed');
    const result = done.result as Json;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'failed', reason: 'script rejected by moderation' });
    expect(h!.sim.log.count(POSTS)).toBe(1);
  });
});

describe('consent comes first: only a started job becomes a task', () => {
  it('token flow: the quote answers as today (no task, no POST); the confirmed call becomes a task', async () => {
    const caller = await start({ config: { confirm: { mode: 'always' } } });
    const alice = caller('alice');
    const args = billableExample(TOOL).args(h!.sim, 7);
    const quote = await callTool(alice, args);
    expect(quote.result?.resultType).toBe('complete');
    expect(quote.result?.taskId).toBeUndefined();
    const q = quote.result?.structuredContent as Json;
    expect(q.status).toBe('confirmation_required');
    expect(h!.sim.log.count(POSTS)).toBe(0);

    // Confirmed on another instance: the token and the task both live in the store.
    const confirmed = await callTool(caller('alice'), { ...args, confirmation_token: q.confirmation_token });
    expect(confirmed.result?.resultType).toBe('task');
    expect(h!.sim.log.count(POSTS)).toBe(1);
    const done = await pollToEnd(caller('alice'), confirmed.result!.taskId as string);
    expect(done.status).toBe('completed');
    expect(h!.sim.log.count(POSTS)).toBe(1);
  });

  it('form flow (input_required): a declined form is no task and no POST; an accepted one is a task', async () => {
    const caller = await start({ config: { confirm: { mode: 'always' } } });
    const alice = caller('alice', true, { elicitation: { form: {} } });
    const args = billableExample(TOOL).args(h!.sim, 8);
    const ask = await callTool(alice, args);
    expect(ask.result?.resultType).toBe('input_required');
    const requestState = ask.result?.requestState as string;
    expect(typeof requestState).toBe('string');
    const answer = (action: string, confirm: boolean) =>
      alice(
        'tools/call',
        {
          name: TOOL,
          arguments: args,
          inputResponses: { confirm: { action, content: { confirm } } },
          requestState,
        },
        TOOL,
      );

    const declined = await answer('decline', false);
    expect(declined.result?.resultType).toBe('complete');
    expect((declined.result?.structuredContent as Json | undefined)?.status).toBe('declined');
    expect(h!.sim.log.count(POSTS)).toBe(0);

    const accepted = await answer('accept', true);
    expect(accepted.result?.resultType).toBe('task');
    expectShape(CreateTaskResultV2Schema, accepted.result);
    expect(h!.sim.log.count(POSTS)).toBe(1);
    const done = await pollToEnd(alice, accepted.result!.taskId as string);
    expect(done.status).toBe('completed');
    expect(h!.sim.log.count(POSTS)).toBe(1);
  });
});

describe('clients that take no tasks get the handle flow unchanged', () => {
  it('a 2026-07-28 client without the extension gets the envelope, and tasks/get answers -32021', async () => {
    const caller = await start();
    const plain = caller('alice', false);
    const r = await callTool(plain, billableExample(TOOL).args(h!.sim, 4));
    expect(r.result?.resultType).toBe('complete');
    expect(r.result?.taskId).toBeUndefined();
    const env = r.result?.structuredContent as Json;
    expect(env.status).toBe('submitted');
    expect(env.next_step).toMatch(/wait_for_jobs/);
    expect(h!.sim.log.count(POSTS)).toBe(1);

    // Even with a valid task id, a request that does not declare the extension is refused as the spec says.
    const withTasks = caller('alice');
    const created = await callTool(withTasks, billableExample(TOOL).args(h!.sim, 5));
    const refused = await getTask(plain, created.result!.taskId as string);
    expect(refused.error?.code).toBe(-32021);
  });

  it('a 2025-11-25 client that declares the extension still gets the envelope (tasks are a 2026-07-28 extension)', async () => {
    h = await startHarness({
      era: 'legacy',
      clientCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as never,
    });
    const r = await h.call(TOOL, billableExample(TOOL).args(h.sim, 6));
    expect(r.isError).toBeFalsy();
    expect(structured(r).status).toBe('submitted');
    expect((r as Json).taskId).toBeUndefined();
    expect(h.sim.log.count(POSTS)).toBe(1);

    // tasks/get on a 2025-era connection reaches our handler (the 2025 codec lists the method) and is refused
    // the way the extension refuses a client that did not declare it on a 2026-07-28 request.
    const err = await h.client.request({ method: 'tasks/get', params: { taskId: 'gt1.x.y' } }, z.looseObject({})).then(
      () => undefined,
      (e: { code?: number }) => e,
    );
    expect(err?.code).toBe(-32021);
  });
});
