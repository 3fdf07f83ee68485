/**
 * A stock `@modelcontextprotocol/client` v2 `Client` and MCP tasks (issue 29 item 2; docs/protocol.md "Tasks"), over
 * real HTTP with the real client: one that does not declare `io.modelcontextprotocol/tasks` gets the ordinary answer
 * (the job envelope with its handle). One that declares it is answered with a task, which the stock Client 2.4
 * refuses (`UnsupportedResultType`) after the job was started: the handle is not lost — the same call again sends
 * nothing and names it, and list_jobs lists it. With a task open, its owner's jobs are followed: the job is recorded
 * completed with nobody polling tasks/get (src/protocol/task-follow.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
});
afterAll(() => f.close());

describe('a stock v2 Client and tasks', () => {
  it('without the tasks extension: the ordinary answer, with the handle', async () => {
    const c = await f.connect(TOKEN_A);
    const r = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Plain answer please.' }));
    expect(r.status).toBe('submitted');
    expect(r.handle).toMatch(/^actor_video:/);
  });

  it('declaring the extension: the task is refused by the client, yet the handle is found again; followed meanwhile', async () => {
    const c = await f.connect(TOKEN_B, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    if (c.era === 'legacy') return;
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const args = { avatar_id: 'av_marcus', voice_script: 'A task I cannot read.' };
    const posts = f.sim.log.count(POSTS);
    await expect(c.call('create_talking_video', args)).rejects.toThrow(/Unsupported result type 'task'/);
    expect(f.sim.log.count(POSTS)).toBe(posts + 1);
    // The same call again: nothing sent, the answer names the job it started (an ordinary result, not a task).
    const again = await c.call('create_talking_video', args);
    expect(f.sim.log.count(POSTS)).toBe(posts + 1);
    const handle = /actor_video:[A-Za-z0-9_-]+/.exec(JSON.stringify(again.content))?.[0];
    expect(handle).toBeDefined();
    const listed = sc(await c.call('list_jobs', {}));
    expect(JSON.stringify(listed)).toContain(handle);
    // The open task's owner is followed: the job is recorded completed with nobody reading it.
    const job = f.sim.jobs.all().find((j) => handle!.endsWith(j.id))!;
    job.finishAt = Date.now();
    await vi.waitFor(
      async () => {
        const rec = (await f.rt.jobs.list({})).find((r) => r.handle === handle);
        expect(rec?.status).toBe('completed');
      },
      { timeout: 20_000, interval: 50 },
    );
  });
});
