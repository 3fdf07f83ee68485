/**
 * Campaign change notifications over stateless HTTP (issue 21 item 4): a 2026-07-28 client's
 * `subscriptions/listen` stream naming genplat://campaigns/{id} hears `notifications/resources/updated` when an
 * item finishes; another caller's stream naming the same URI hears nothing of it. (2025 clients over HTTP have no
 * session for resources/subscribe: test/http/listen.test.ts; stdio: test/campaigns/subscriptions.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, sc, startHttpFixture, TOKEN_A, TOKEN_B } from './helpers.js';

let f: HttpFixture;
beforeAll(async () => {
  f = await startHttpFixture({ confirm: { mode: 'never' } });
});
afterAll(() => f.close());

describe('campaign change notifications over HTTP', () => {
  it("2026-07-28: the owner's stream hears an item finish; another caller's stream hears nothing", async () => {
    const a = await f.connect(TOKEN_A);
    if (a.era === 'legacy') return;
    const b = await f.connect(TOKEN_B);
    f.sim.jobs.scriptNext({ durationMs: 600_000 }, 2);
    const created = sc(
      await a.call('create_campaign', {
        items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Listen in.' } }],
        vary: { avatar_id: ['av_ava', 'av_marcus'] },
      }),
    );
    const handle = created.handle as string;
    expect(handle).toMatch(/^campaign:/);
    const uri = `genplat://campaigns/${handle.slice('campaign:'.length)}`;
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
    // Both items sent (each has its platform job), then made to finish now.
    await vi.waitFor(() => expect(f.sim.jobs.all().filter((j) => j.finishAt > Date.now() + 60_000)).toHaveLength(2), {
      timeout: 10_000,
      interval: 20,
    });
    for (const j of f.sim.jobs.all()) j.finishAt = Date.now();
    const w = sc(await a.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 }));
    expect(w.done).toBe(true);
    await vi.waitFor(() => expect(heardA).toContain(uri), { timeout: 10_000, interval: 20 });
    // B's stream is fed from the same bus at the same moment; give it the same time to (not) hear.
    await new Promise((r) => setTimeout(r, 300));
    expect(heardB).toEqual([]);
    await subA.close();
    await subB.close();
  });
});
