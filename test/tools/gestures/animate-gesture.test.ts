import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import animateGesture from '../../../tools/gestures/animate-gesture.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'animate_gesture';
const POSTS = { method: 'POST', path: '/gestures/generate' } as const;
const BASE = { prompt: 'waves at the camera, then smiles', image_url: 'https://cdn.example.com/people/ana.jpg' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [animateGesture, waitForJobs] as unknown as ToolSpec[] });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Job = { status: string; outputs?: { url: string; media: string }[]; reason?: string; credits_charged?: number };
async function waitOne(handle: string): Promise<Job> {
  const w = await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 });
  return (structured(w).jobs as Job[])[0]!;
}

describe('animate_gesture', () => {
  it('is listed as billable with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('happy path: an unpublished-price quote, the reported charge, then a video_url', async () => {
    const r = await h.call(TOOL, BASE);
    const s = structured(r);
    expect(r.isError).toBeFalsy();
    expect(s).toMatchObject({
      status: 'submitted',
      kind: 'gesture',
      estimate: { credits: h.config.maxCreditsPerCall, bounded: false },
      credits_charged: 100,
    });
    expect((s.estimate as { basis: string }).basis).toMatch(/not published/);
    expect(s.handle).toMatch(/^gesture:/);
    expect((s.remote as { project_id?: string }).project_id).toBeTruthy();
    expect(h.sim.log.count(POSTS)).toBe(1);
    expect(h.sim.log.entries()[0]!.body).toEqual(BASE);
    expect(await h.jobs.get(s.handle!)).toMatchObject({ creditsCharged: 100 });

    const job = await waitOne(s.handle!);
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
    expect(job.outputs?.[0]?.url).toMatch(/^http/);
  });

  it('reuses a project and reports a failed job with its reason', async () => {
    const first = structured(await h.call(TOOL, BASE));
    const project_id = (first.remote as { project_id: string }).project_id;
    h.sim.jobs.scriptNext({ durationMs: 0, outcome: { kind: 'fail', reason: 'no person found' } });
    const s = structured(await h.call(TOOL, { ...BASE, prompt: 'nods', project_id }));
    expect(s.remote).toMatchObject({ project_id });
    const job = await waitOne(s.handle!);
    expect(job.status).toBe('failed');
    expect(job.reason).toContain('no person found');
  });

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['a missing prompt', { image_url: BASE.image_url }, /prompt/],
    ['a blank prompt', { ...BASE, prompt: '   ' }, /prompt/],
    ['a prompt over 2000 characters', { ...BASE, prompt: 'a'.repeat(2001) }, /prompt/],
    ['a missing image_url', { prompt: BASE.prompt }, /image_url/],
    ['a private image_url', { ...BASE, image_url: 'http://172.16.0.4/ana.jpg' }, /image_url/],
    ['a data URI image', { ...BASE, image_url: 'data:image/jpeg;base64,/9j/' }, /image_url/],
    ['an unknown argument', { ...BASE, webhook_url: 'https://hooks.example.com/x' }, /webhook_url|unrecognized/i],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }
});
