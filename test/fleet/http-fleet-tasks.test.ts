/**
 * Issue 11, "tasks polled across all": MCP tasks (src/protocol/tasks.ts) on three HTTP instances on one
 * PostgreSQL behind the round-robin proxy (test/helpers/http-fleet.ts), over the real HTTP path (bearer tokens,
 * the SDK's Host/Origin guards, our limits), not the in-process handler. The client is the raw 2026-07-28 one
 * (test/helpers/raw-modern-client.ts): the v2 SDK client refuses a task answer. Quote, confirm and every
 * `tasks/get` go wherever the proxy sends them, so nothing but the store links a task's polls to its creation.
 *
 * Tasks are a 2026-07-28 extension, so this file speaks that era whatever the run's GENPLAT_TEST_ERA; it does not
 * import the era-aware HTTP helpers and runs once (vitest.config.ts). The 2025 handle flow through the fleet is
 * test/fleet/http-fleet.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { billableExample } from '../helpers/examples.js';
import { FLEET_TOKEN_A, FLEET_TOKEN_B, type HttpFleet, startHttpFleet } from '../helpers/http-fleet.js';
import {
  callToolRaw,
  getTask,
  type Json,
  pollTaskToEnd,
  type RawCaller,
  rawModernClient,
} from '../helpers/raw-modern-client.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;

let fleet: HttpFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});
beforeAll(dropTestDatabases);
afterAll(dropTestDatabases);

/** A raw 2026-07-28 caller through the proxy with `token`, declaring the tasks extension. */
function caller(f: HttpFleet, token: string): RawCaller {
  return rawModernClient((req) => fetch(req), {
    url: f.proxy.url,
    headers: { authorization: `Bearer ${token}` },
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

describe('MCP tasks across three HTTP instances on one PostgreSQL', () => {
  it('quote, confirm and tasks/get each land anywhere: the task completes with the output after one POST', async () => {
    fleet = await startHttpFleet({ size: 3, databaseUrl: await createTestDatabase(), confirm: { mode: 'always' } });
    const f = fleet;
    const alice = caller(f, FLEET_TOKEN_A);
    const args = billableExample(TOOL).args(f.sim);
    // The job runs until the test ends it, so polls see `working` on every instance first.
    f.sim.jobs.scriptNext({ durationMs: 600_000 });

    // A client without elicitation: the confirmation-token flow, quote on one instance, confirm on the next.
    const mark = f.proxy.served.length;
    const quote = await callToolRaw(alice, TOOL, args);
    expect(quote.error).toBeUndefined();
    expect(quote.result?.resultType).toBe('complete');
    const q = quote.result?.structuredContent as Json;
    expect(q.status).toBe('confirmation_required');
    expect(f.sim.log.count(POSTS)).toBe(0);
    const created = await callToolRaw(alice, TOOL, { ...args, confirmation_token: q.confirmation_token });
    expect(created.error).toBeUndefined();
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result?.taskId as string;
    expect(typeof taskId).toBe('string');
    expect(f.sim.log.count(POSTS)).toBe(1);
    const [quotedOn, confirmedOn] = f.proxy.served.slice(mark);
    expect(quotedOn).not.toBe(confirmedOn);

    // Round robin: six polls while the job runs reach every instance, and each answers the same task.
    const pollsFrom = f.proxy.served.length;
    for (let i = 0; i < 6; i++) {
      const r = await getTask(alice, taskId);
      expect(r.error).toBeUndefined();
      expect(r.result).toMatchObject({ taskId, status: 'working' });
    }
    expect(new Set(f.proxy.served.slice(pollsFrom))).toEqual(new Set([0, 1, 2]));

    // Another token (another owner) cannot see it: the same "not found" as an id that never existed.
    const bob = caller(f, FLEET_TOKEN_B);
    const stolen = await getTask(bob, taskId);
    const unknown = await getTask(bob, `${taskId.slice(0, -4)}AAAA`);
    expect(stolen.result).toBeUndefined();
    expect(stolen.error?.code).toBe(-32602);
    expect(stolen.error?.message).toMatch(/not found/i);
    expect(stolen.error).toEqual(unknown.error);

    // The job ends; polling through the proxy (all instances) reaches `completed` with the output.
    expect(f.sim.jobs.all()).toHaveLength(1);
    const job = f.sim.jobs.all()[0]!;
    job.finishAt = Date.now();
    const endFrom = f.proxy.served.length;
    const done = await pollTaskToEnd(alice, taskId);
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed', taskId });
    const result = done.result as Json;
    expect(result.isError).toBeUndefined();
    const final = result.structuredContent as { status: string; outputs: { url: string }[] };
    expect(final.status).toBe('completed');
    expect(final.outputs.length).toBeGreaterThan(0);
    expect(final.outputs[0]!.url).toMatch(/^http/);
    expect(f.proxy.served.length).toBeGreaterThan(endFrom);

    // Once terminal, every instance gives the same answer; still only the one POST.
    for (let i = 0; i < 3; i++) {
      expect((await getTask(alice, taskId)).result).toMatchObject({ taskId, status: 'completed' });
    }
    expect(new Set(f.proxy.served.slice(-3))).toEqual(new Set([0, 1, 2]));
    expect(f.sim.log.count(POSTS)).toBe(1);
  }, 90_000);
});
