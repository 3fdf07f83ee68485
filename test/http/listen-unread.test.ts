/**
 * Streams that hear by themselves (issue 29 item 2): a 2026-07-28 `subscriptions/listen` stream hears its caller's
 * job finish, and its campaign move item by item ("1 of 2 done", "2 of 2 done" in the notification's
 * `_meta['io.genplat/progress']`), with nobody reading them — no get_job, no wait_for_jobs, no resources/read. The
 * server follows every open job of a listening owner at the poller's pace (src/jobs/follower.ts). No timing is
 * asserted: each step waits for the notification it expects.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A } from './helpers.js';

type Note = { status: string; done: number; total: number; message: string };

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
});
afterAll(() => f.close());

describe('a listen stream hears by itself', () => {
  it('a listen stream hears a job finish with nobody reading', async () => {
    const c = await f.connect(TOKEN_A);
    if (c.era === 'legacy') return;
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Nobody reads.' }));
    const uri = `genplat://jobs/${created.handle}`;
    const heard: { uri: string; note?: Note }[] = [];
    c.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heard.push({ uri: n.params.uri, note: n.params._meta?.['io.genplat/progress'] as Note | undefined });
    });
    const sub = await c.client.listen({ resourceSubscriptions: [uri] });
    const job = f.sim.jobs.all().find((j) => j.id === (created.remote as { id: string }).id)!;
    const readsBefore = f.sim.log.count({ method: 'GET' });
    job.finishAt = Date.now();
    await vi.waitFor(() => expect(heard.map((h) => h.uri)).toContain(uri), { timeout: 20_000, interval: 20 });
    expect(heard.find((h) => h.uri === uri)?.note).toMatchObject({ status: 'completed', done: 1, total: 1 });
    // The server read it (someone must), at the poller's pace; no tool call of the client's did.
    expect(f.sim.log.count({ method: 'GET' })).toBeGreaterThan(readsBefore);
    await sub.close();
  });

  it('a listen stream hears its campaign move item by item, "k of N done", with nobody reading', async () => {
    const c = await f.connect(TOKEN_A);
    if (c.era === 'legacy') return;
    f.sim.jobs.scriptNext({ durationMs: 600_000 }, 2);
    const created = sc(
      await c.call('create_campaign', {
        items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Heard alone.' } }],
        vary: { avatar_id: ['av_ava', 'av_marcus'] },
      }),
    );
    const handle = created.handle as string;
    const uri = `genplat://campaigns/${handle.slice('campaign:'.length)}`;
    const notes: Note[] = [];
    c.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      const note = n.params._meta?.['io.genplat/progress'] as Note | undefined;
      if (n.params.uri === uri && note) notes.push(note);
    });
    const sub = await c.client.listen({ resourceSubscriptions: [uri] });
    await vi.waitFor(() => expect(f.sim.jobs.all().filter((j) => j.finishAt > Date.now() + 60_000)).toHaveLength(2), {
      timeout: 20_000,
      interval: 20,
    });
    const jobs = f.sim.jobs.all().filter((j) => j.finishAt > Date.now() + 60_000);
    jobs[0]!.finishAt = Date.now();
    await vi.waitFor(() => expect(notes.map((n) => n.message)).toContain('1 of 2 done'), {
      timeout: 20_000,
      interval: 20,
    });
    jobs[1]!.finishAt = Date.now();
    await vi.waitFor(() => expect(notes.map((n) => n.message)).toContain('2 of 2 done'), {
      timeout: 20_000,
      interval: 20,
    });
    expect(notes.at(-1)).toMatchObject({ status: 'completed', done: 2, total: 2 });
    await sub.close();
  });
});
