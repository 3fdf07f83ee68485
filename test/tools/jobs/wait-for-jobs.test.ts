import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const STATUS = { method: 'GET', path: '/video/status' } as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Script = Parameters<Harness['sim']['jobs']['scriptNext']>[0];
async function simJob(script?: Script): Promise<string> {
  if (script) h.sim.jobs.scriptNext(script);
  const r = await h.platform.actors.generate({ avatar_id: 'av_ava', voice_script: 'Hello there.' });
  return `actor_video:${r.data.id}`;
}
type Env = { status: string; handle: string; outputs?: { url: string }[]; reason?: string };

describe('wait_for_jobs', () => {
  it('is read-only, bounded at 50 handles and 50 s', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === 'wait_for_jobs')!;
    expect(t.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(t.inputSchema.properties?.handles).toMatchObject({ minItems: 1, maxItems: 50 });
    // The portable view carries no `default` keyword (OpenAI strict): the default is in the description.
    expect(t.inputSchema.properties?.max_wait_s).toMatchObject({
      maximum: 50,
      description: expect.stringContaining('default 45'),
    });
  });

  it('waits until all jobs complete and returns their outputs', async () => {
    const a = await simJob({ durationMs: 150 });
    const b = await simJob({ durationMs: 400 });
    const r = await h.call('wait_for_jobs', { handles: [a, b], max_wait_s: 10 });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ done: true, pending: [] });
    const jobs = s.jobs as Env[];
    expect(jobs.map((j) => [j.handle, j.status])).toEqual([
      [a, 'completed'],
      [b, 'completed'],
    ]);
    expect(jobs.every((j) => j.outputs?.length === 1)).toBe(true);
    expect(r.content.filter((c) => c.type === 'resource_link')).toHaveLength(2);
  });

  it('until any returns at the first finished job and names the rest', async () => {
    const slow = await simJob({ durationMs: 60_000 });
    const fast = await simJob({ durationMs: 100 });
    const s = structured(await h.call('wait_for_jobs', { handles: [slow, fast], until: 'any', max_wait_s: 10 }));
    expect(s).toMatchObject({ done: true, pending: [slow] });
    expect(String(s.next_step)).toContain(`wait_for_jobs with handles ["${slow}"]`);
  });

  it('returns the pending handles when time runs out, with the exact next call', async () => {
    const a = await simJob({ durationMs: 60_000 });
    const t0 = Date.now();
    const r = await h.call('wait_for_jobs', { handles: [a], max_wait_s: 1 });
    const took = Date.now() - t0;
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ done: false, pending: [a] });
    expect(String(s.next_step)).toBe(
      `Time ran out; the jobs keep running. Call wait_for_jobs with handles ["${a}"] to keep waiting.`,
    );
    expect(took).toBeGreaterThanOrEqual(1_000);
    // Did not hang past its max_wait_s (generous: 8 test workers share 2 cores); the job itself runs 60 s.
    expect(took).toBeLessThan(15_000);
  });

  it("reports a failed job with the platform's reason; all failed is an error", async () => {
    const a = await simJob({ outcome: { kind: 'fail', reason: 'script rejected by moderation' } });
    const r = await h.call('wait_for_jobs', { handles: [a], max_wait_s: 10 });
    expect(r.isError).toBe(true);
    expect((structured(r).jobs as Env[])[0]).toMatchObject({
      status: 'failed',
      reason: 'script rejected by moderation',
    });
  });

  it('sends strictly increasing progress', async () => {
    const a = await simJob({ durationMs: 1_500 });
    const b = await simJob({ durationMs: 300 });
    const seen: { progress: number; message?: string }[] = [];
    await h.call('wait_for_jobs', { handles: [a, b], max_wait_s: 10 }, { onprogress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.some((p) => p.message?.startsWith('1/2 done'))).toBe(true);
  });

  it('reports a ledger-only submission of unknown outcome without polling anything', async () => {
    const rec = await h.jobs.track({
      tool: 'create_talking_video',
      kind: 'actor_video',
      fingerprint: 'fp-unknown',
      summary: 'talking video',
      estimate: undefined,
      consent: 'policy',
      owner: undefined,
    });
    await h.jobs.settle(rec.id, { outcome: 'unknown', status: 'unknown', requestId: 'rq-123' });
    const r = await h.call('wait_for_jobs', { handles: [rec.handle], max_wait_s: 5 });
    const job = (structured(r).jobs as Env[])[0]!;
    expect(job.status).toBe('unknown');
    expect(job.reason).toMatch(/may or may not have been accepted.*rq-123/);
    expect(structured(r).done).toBe(true);
    expect(h.sim.log.entries()).toHaveLength(0);
  });

  it('an invalid handle is an error naming handles[i], and nothing is sent', async () => {
    const a = await simJob();
    h.sim.log.clear();
    const r = await h.call('wait_for_jobs', { handles: [a, 'video:123'] });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('"handles[1]"');
    expect(h.sim.log.entries()).toHaveLength(0);
  });

  it('cancelling the call stops polling and never touches the job', async () => {
    const a = await simJob({ durationMs: 60_000 });
    h.sim.log.clear();
    const ac = new AbortController();
    const call = h.call('wait_for_jobs', { handles: [a], max_wait_s: 30 }, { signal: ac.signal });
    // Cancelled once the wait is polling (its first read answered), not after a fixed 200 ms.
    await vi.waitFor(() => expect(h.sim.log.count(STATUS)).toBeGreaterThan(0), { timeout: 20_000, interval: 10 });
    ac.abort();
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    const reads = h.sim.log.count(STATUS);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.sim.log.count(STATUS)).toBe(reads);
    expect(reads).toBeGreaterThan(0);
    // Only status reads were sent: nothing that could change or cancel the job.
    expect(h.sim.log.entries().every((e) => e.method === 'GET' && e.path === '/video/status')).toBe(true);
  });
});
