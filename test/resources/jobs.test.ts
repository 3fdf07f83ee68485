import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, testEra } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const json = (r: { contents: unknown[] }) => JSON.parse((r.contents[0] as { text: string }).text);

let n = 0;
async function created(script?: Parameters<Harness['sim']['jobs']['scriptNext']>[0]): Promise<string> {
  if (script) h.sim.jobs.scriptNext(script);
  // A distinct script each time: the duplicate guard refuses an identical job while one is running.
  const s = structured(
    await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: `Resource test ${++n}.` }),
  );
  expect(s.handle).toMatch(/^actor_video:/);
  return s.handle!;
}

describe('job resources', () => {
  it('genplat://jobs lists ledger jobs; each job appears in resources/list', async () => {
    const handle = await created();
    const { jobs } = json(await h.client.readResource({ uri: 'genplat://jobs' }));
    expect(jobs[0]).toMatchObject({ handle, tool: 'create_talking_video' });
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`genplat://jobs/${handle}`);
  });

  it('genplat://jobs/{handle} is the live job envelope', async () => {
    const handle = await created({ durationMs: 50 });
    await new Promise((r) => setTimeout(r, 120));
    const env = json(await h.client.readResource({ uri: `genplat://jobs/${handle}` }));
    expect(env).toMatchObject({ status: 'completed', handle, kind: 'actor_video', estimate: { credits: 100 } });
    expect(env.outputs).toHaveLength(1);
  });

  it('a bad handle is an invalid-params error', async () => {
    await expect(h.client.readResource({ uri: 'genplat://jobs/nope' })).rejects.toThrow(/handle/);
  });

  it('completes handles from the ledger', async () => {
    const handle = await created();
    const r = await h.client.complete({
      ref: { type: 'ref/resource', uri: 'genplat://jobs/{handle}' },
      argument: { name: 'handle', value: 'actor_video:' },
    });
    expect(r.completion.values).toContain(handle);
  });

  // resources/subscribe is 2025-era; a 2026-07-28 client listens with subscriptions/listen (test/fleet).
  const legacyOnly = it.skipIf(testEra() === 'modern');
  legacyOnly('a subscriber is told when its job completes, without any wait call', async () => {
    const handle = await created({ durationMs: 400 });
    const uri = `genplat://jobs/${handle}`;
    const updates: string[] = [];
    h.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await h.client.subscribeResource({ uri });
    const deadline = Date.now() + 5_000;
    while (!updates.includes(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(updates).toContain(uri);
    expect(json(await h.client.readResource({ uri })).status).toBe('completed');
    await h.client.unsubscribeResource({ uri });
  });

  legacyOnly('an unsubscribed job sends no notification', async () => {
    const handle = await created({ durationMs: 300 });
    const uri = `genplat://jobs/${handle}`;
    const updates: string[] = [];
    h.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await h.client.subscribeResource({ uri });
    await h.client.unsubscribeResource({ uri });
    await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 5 });
    expect(updates).not.toContain(uri);
  });

  legacyOnly("HTTP mode: a caller cannot subscribe to another caller's job", async () => {
    const handle = await created({ durationMs: 60_000 });
    const other = await startHarness({ owner: 'someone-else', sim: h.sim, stateDir: h.stateDir });
    try {
      await expect(other.client.subscribeResource({ uri: `genplat://jobs/${handle}` })).rejects.toThrow(/no such job/);
    } finally {
      await other.close();
    }
  });
});
