/**
 * Job change notifications over stateless HTTP, one instance (SQLite, in-process pub/sub): a 2026-07-28 client's
 * `subscriptions/listen` stream hears `notifications/resources/updated` for a job the poller saw finish; a
 * 2025 client is not offered resource subscriptions (there is no session to send them on). Across instances:
 * test/fleet/http-fleet.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
});
afterAll(() => f.close());

describe('job change notifications over HTTP', () => {
  it('2026-07-28: a listen stream hears a job finish; 2025: resources.subscribe is not advertised', async () => {
    const c = await f.connect(TOKEN_A);
    const caps = c.client.getServerCapabilities();
    if (c.era === 'legacy') {
      expect(caps?.resources?.subscribe).toBe(false);
      return;
    }
    expect(caps?.resources?.subscribe).toBe(true);
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = sc(await c.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Listen to me.' }));
    const uri = `genplat://jobs/${created.handle}`;
    const other = 'genplat://jobs/actor_video:someone_else';
    const heard: string[] = [];
    c.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heard.push(n.params.uri);
    });
    const sub = await c.client.listen({ resourceSubscriptions: [uri, other] });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual([uri, other]);
    const job = f.sim.jobs.all().find((j) => j.id === (created.remote as { id: string }).id)!;
    job.finishAt = Date.now();
    const w = sc(await c.call('wait_for_jobs', { handles: [created.handle], max_wait_s: 20 }));
    expect((w.jobs as { status: string }[])[0]!.status).toBe('completed');
    await vi.waitFor(() => expect(heard).toContain(uri), { timeout: 10_000, interval: 20 });
    expect(heard).not.toContain(other);
    await sub.close();
  });

  it("2026-07-28: a stream naming another caller's handle hears nothing of it (issue 19 item 5)", async () => {
    const a = await f.connect(TOKEN_A);
    if (a.era === 'legacy') return;
    const b = await f.connect(TOKEN_B);
    f.sim.jobs.scriptNext({ durationMs: 600_000 });
    const created = sc(await a.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Mine only.' }));
    const uri = `genplat://jobs/${created.handle}`;
    const heardA: string[] = [];
    const heardB: string[] = [];
    a.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heardA.push(n.params.uri);
    });
    b.client.setNotificationHandler('notifications/resources/updated', async (n) => {
      heardB.push(n.params.uri);
    });
    const subA = await a.client.listen({ resourceSubscriptions: [uri] });
    const subB = await b.client.listen({ resourceSubscriptions: [uri] });
    const job = f.sim.jobs.all().find((j) => j.id === (created.remote as { id: string }).id)!;
    job.finishAt = Date.now();
    await a.call('wait_for_jobs', { handles: [created.handle], max_wait_s: 20 });
    await vi.waitFor(() => expect(heardA).toContain(uri), { timeout: 10_000, interval: 20 });
    // B's stream is fed from the same bus at the same moment; give it the same time to (not) hear.
    await new Promise((r) => setTimeout(r, 300));
    expect(heardB).toEqual([]);
    await subA.close();
    await subB.close();
  });
});
