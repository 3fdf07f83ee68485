import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const STATUS = { method: 'GET', path: '/video/status' } as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

/** A talking-actor job created straight on the simulator (as if started elsewhere). */
async function simJob(script?: Parameters<Harness['sim']['jobs']['scriptNext']>[0]): Promise<string> {
  if (script) h.sim.jobs.scriptNext(script);
  const r = await h.platform.actors.generate({ avatar_id: 'av_ava', voice_script: 'Hello there.' });
  return r.data.id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('get_job', () => {
  it('is read-only with a short description and a flat input schema', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'get_job')!;
    expect(t.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(t.description!.length).toBeLessThan(300);
    expect(t.inputSchema).not.toHaveProperty('anyOf');
    expect(t.inputSchema).not.toHaveProperty('oneOf');
    for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
      expect((prop as { description?: string }).description, name).toBeTruthy();
    }
  });

  it('reads a completed job by handle: outputs, resource links, next step', async () => {
    const id = await simJob();
    await sleep(60);
    const r = await h.call('get_job', { handle: `actor_video:${id}` });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ status: 'completed', handle: `actor_video:${id}`, kind: 'actor_video', remote: { id } });
    const outputs = s.outputs as { url: string; media: string }[];
    expect(outputs).toHaveLength(1);
    expect(outputs[0]!.media).toBe('video');
    expect(typeof s.request_id).toBe('string');
    expect(String(s.next_step)).toMatch(/Done/);
    const links = r.content.filter((c) => c.type === 'resource_link') as { uri: string }[];
    expect(links.map((l) => l.uri)).toEqual([outputs[0]!.url, `genplat://jobs/actor_video:${id}`]);
    expect(h.sim.log.count(STATUS)).toBe(1);
  });

  it('a processing job says to wait, naming the handle', async () => {
    const id = await simJob({ durationMs: 60_000 });
    const s = structured(await h.call('get_job', { handle: `actor_video:${id}` }));
    expect(s.status).toBe('processing');
    expect(String(s.next_step)).toContain(`wait_for_jobs with handles ["actor_video:${id}"]`);
  });

  it("a failed job is an error carrying the platform's reason", async () => {
    const id = await simJob({ outcome: { kind: 'fail', reason: 'no face found in the avatar image' } });
    await sleep(60);
    const r = await h.call('get_job', { handle: `actor_video:${id}` });
    expect(r.isError).toBe(true);
    expect(structured(r)).toMatchObject({ status: 'failed', reason: 'no face found in the avatar image' });
  });

  it('follows a job started elsewhere by kind + id, gives its handle and records it for list_jobs', async () => {
    const id = await simJob({ durationMs: 60_000 });
    const s = structured(await h.call('get_job', { kind: 'actor_video', id }));
    expect(s).toMatchObject({ status: 'processing', handle: `actor_video:${id}` });
    expect(await h.jobs.get(`actor_video:${id}`)).toMatchObject({ tool: 'external', status: 'processing' });
    const done = await simJob();
    await sleep(60);
    await h.call('get_job', { kind: 'actor_video', id: done });
    const rec = await h.jobs.get(`actor_video:${done}`);
    expect(rec).toMatchObject({ tool: 'external', status: 'completed' });
    expect(rec!.outputs).toHaveLength(1);
    const listed = structured(await h.call('list_jobs', {})).jobs as { handle: string; tool: string }[];
    expect(listed.find((j) => j.handle === `actor_video:${id}`)?.tool).toBe('external');
    // Asking again does not add a second record.
    await h.call('get_job', { kind: 'actor_video', id });
    expect((await h.jobs.list()).filter((r) => r.handle === `actor_video:${id}`)).toHaveLength(1);
  });

  it('answers from a read less than 5 s old (harness interval) instead of reading again', async () => {
    const id = await simJob({ durationMs: 60_000 });
    await Promise.all([1, 2, 3].map(() => h.call('get_job', { handle: `actor_video:${id}` })));
    expect(h.sim.log.count(STATUS)).toBe(1);
  });

  it('an id the platform does not know is an error', async () => {
    const r = await h.call('get_job', { kind: 'product_video', id: 'does-not-exist' });
    expect(r.isError).toBe(true);
    expect(structured(r).status).toBe('unknown');
    // No phantom ledger record for an id nobody knows.
    expect(await h.jobs.get('product_video:does-not-exist')).toBeUndefined();
  });

  it.each([
    [{ handle: 'not a handle' }, 'handle'],
    [{}, 'handle'],
    [{ kind: 'actor_video' }, 'id'],
    [{ handle: 'actor_video:x', kind: 'actor_video', id: 'x' }, 'handle'],
    [{ kind: 'upscale', id: 'v1', video_type: 'video', billing_id: 'b' }, 'project_id'],
  ])('rejects %j naming %s, with no request', async (args, field) => {
    const r = await h.call('get_job', args);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`"${field}"`);
    expect(h.sim.log.entries()).toHaveLength(0);
  });
});
