import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import createProductVideo from '../../../tools/product/create-product-video.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_product_video';
const POSTS = { method: 'POST', path: /^\/product-in-hand\/.+\/generate$/ } as const;
const TOOLS = [createProductVideo, waitForJobs] as unknown as ToolSpec[];
const IMAGE = 'https://cdn.example.com/products/bottle.png';
const SCENES = [
  { script: 'Cold for a day.', description: 'bottle on a desk' },
  { script: 'Hot for twelve hours.', description: 'hand pours coffee' },
];

let h: Harness;
let voiceId: string;
beforeAll(async () => {
  h = await startHarness({ tools: TOOLS });
  voiceId = h.sim.data.voices.find((v) => v.language === 'English')!.id;
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

/** The one POST sent: its route and body. */
function sent() {
  const posts = h.sim.log.entries().filter((e) => e.method === 'POST');
  expect(posts).toHaveLength(1);
  return posts[0]!;
}

async function completes(handle: string) {
  const w = await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 });
  const job = (structured(w).jobs as { status: string; outputs?: { url: string; media: string }[] }[])[0]!;
  expect(job.status).toBe('completed');
  expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
  expect(job.outputs?.[0]?.url).toMatch(/^http/);
}

describe('create_product_video', () => {
  it('is listed as billable with a short description and a flat input', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    expect(JSON.stringify(t.inputSchema)).not.toMatch(/"(anyOf|oneOf)"/);
  });

  it('v2: script + voice_id, 100 credits, to completion', async () => {
    const r = await h.call(TOOL, { engine: 'v2', image_url: IMAGE, script: 'Keeps coffee hot.', voice_id: voiceId });
    const s = structured(r);
    expect(s).toMatchObject({ status: 'submitted', kind: 'product_video', estimate: { credits: 100 } });
    expect(s.handle).toMatch(/^product_video:/);
    const post = sent();
    expect(post.path).toBe(`/product-in-hand/${h.sim.vendors.L}-v2/generate`);
    expect(post.body).toEqual({ image_url: IMAGE, script: 'Keeps coffee hot.', voice_id: voiceId });
    await completes(s.handle!);
  });

  // Issue 27: the spoken length is unpublished (a script of web addresses beat the old words/characters guess),
  // so a script is always quoted at the upper tier.
  it('human: a short script is priced at the upper tier, 200 (its spoken length is not known), to completion', async () => {
    const r = await h.call(TOOL, { engine: 'human', image_url: IMAGE, script: 'Try it today.', voice_id: voiceId });
    const s = structured(r);
    expect(s).toMatchObject({ status: 'submitted', estimate: { credits: 200, bounded: true } });
    expect((s.estimate as { basis: string }).basis).toMatch(/unknown/);
    expect(sent().path).toBe(`/product-in-hand/${h.sim.vendors.M}-human/generate`);
    await completes(s.handle!);
  });

  it('human: a script of web addresses is priced at 200 (the old guess said 100)', async () => {
    const script = 'https://a.example/x https://b.example/y';
    const s = structured(await h.call(TOOL, { engine: 'human', image_url: IMAGE, script, voice_id: voiceId }));
    expect(s.estimate).toMatchObject({ credits: 200 });
  });

  it('human: a long script is priced at 200', async () => {
    const script = 'This bottle keeps your coffee hot for twelve hours and your water cold for a full day. '.repeat(3);
    const s = structured(await h.call(TOOL, { engine: 'human', image_url: IMAGE, script, voice_id: voiceId }));
    expect(s.estimate).toMatchObject({ credits: 200 });
  });

  it('human with voice_url: always the upper tier (a claimed audio_seconds never lowers it); audio_seconds is never sent', async () => {
    const voice_url = 'https://cdn.example.com/a.mp3?duration=10';
    const unknown = structured(await h.call(TOOL, { engine: 'human', image_url: IMAGE, voice_url }));
    expect(unknown.estimate).toMatchObject({ credits: 200 });
    expect((unknown.estimate as { basis: string }).basis).toMatch(/unknown/);
    // The platform created a project for the first job; the second reuses it.
    const project_id = (unknown.remote as { project_id: string }).project_id;
    expect(project_id).toBeTruthy();
    h.sim.log.clear();
    const stated = structured(
      await h.call(TOOL, { engine: 'human', image_url: IMAGE, voice_url, audio_seconds: 10, project_id }),
    );
    expect(stated).toMatchObject({ status: 'submitted', estimate: { credits: 200 } });
    expect(sent().body).toEqual({ image_url: IMAGE, voice_url, project_id });
  });

  it('scenes: scenes × tier, model sent when given, to completion', async () => {
    const r = await h.call(TOOL, {
      engine: 'scenes',
      image_url: IMAGE,
      scenes: SCENES,
      model: 'fast',
      voice_id: voiceId,
      end_image_url: 'https://cdn.example.com/products/end.png',
    });
    const s = structured(r);
    expect(s).toMatchObject({ status: 'submitted', estimate: { credits: 200 } });
    const post = sent();
    expect(post.path).toBe(`/product-in-hand/${h.sim.vendors.F}/generate`);
    expect(post.body).toEqual({
      image_url: IMAGE,
      scenes: SCENES,
      model: 'fast',
      voice_id: voiceId,
      end_image_url: 'https://cdn.example.com/products/end.png',
    });
    await completes(s.handle!);
  });

  it('scenes without model: priced as pro (the default is unpublished) and model not sent', async () => {
    const s = structured(await h.call(TOOL, { engine: 'scenes', image_url: IMAGE, scenes: SCENES }));
    expect(s.estimate).toMatchObject({ credits: 400 });
    expect((s.estimate as { basis: string }).basis).toMatch(/priced as pro/);
    expect(sent().body).not.toHaveProperty('model');
  });

  const scene = SCENES[0]!;
  const v2 = { engine: 'v2', image_url: IMAGE, script: 'Hi.', voice_id: 'voice_en_rachel' };
  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['a missing script without voice_url', { engine: 'v2', image_url: IMAGE, voice_id: 'v' }, /script/],
    ['a missing voice_id without voice_url', { engine: 'human', image_url: IMAGE, script: 'Hi.' }, /voice_id/],
    ['0 scenes', { engine: 'scenes', image_url: IMAGE, scenes: [] }, /scenes/],
    ['5 scenes', { engine: 'scenes', image_url: IMAGE, scenes: [scene, scene, scene, scene, scene] }, /scenes/],
    ['scenes missing on the scenes engine', { engine: 'scenes', image_url: IMAGE }, /scenes/],
    ['a scene without description', { engine: 'scenes', image_url: IMAGE, scenes: [{ script: 'x' }] }, /description/],
    ['scenes on v2', { ...v2, scenes: [scene] }, /scenes/],
    ['model on human', { ...v2, engine: 'human', model: 'pro' }, /model/],
    ['end_image_url on v2', { ...v2, end_image_url: IMAGE }, /end_image_url/],
    ['script on scenes', { engine: 'scenes', image_url: IMAGE, scenes: [scene], script: 'x' }, /script/],
    ['voice_url on scenes', { engine: 'scenes', image_url: IMAGE, scenes: [scene], voice_url: IMAGE }, /voice_url/],
    [
      'audio_seconds over 30 on human',
      { engine: 'human', image_url: IMAGE, voice_url: IMAGE, audio_seconds: 31 },
      /audio_seconds/,
    ],
    ['audio_seconds without voice_url', { ...v2, audio_seconds: 5 }, /audio_seconds/],
    ['a private image_url', { ...v2, image_url: 'http://169.254.169.254/p.png' }, /image_url/],
    ['a private voice_url', { engine: 'v2', image_url: IMAGE, voice_url: 'http://10.1.2.3/a.mp3' }, /voice_url/],
    ['an unknown engine', { ...v2, engine: 'v3' }, /engine/],
    ['a webhook off the allow-list', { ...v2, webhook_url: 'https://hooks.example.com/x' }, /webhook_url/],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }

  it('an engine whose vendor is unset fails naming GENPLAT_VENDORS, with no request', async () => {
    const { L: _unset, ...vendors } = h.sim.vendors;
    const c = await startHarness({ sim: h.sim, tools: TOOLS, config: { vendors } });
    try {
      const r = await c.call(TOOL, v2);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/GENPLAT_VENDORS/);
      expect(h.sim.log.count(POSTS)).toBe(0);
      // The other engines still work.
      const ok = await c.call(TOOL, { ...v2, engine: 'human' });
      expect(structured(ok).status).toBe('submitted');
    } finally {
      await c.close();
    }
  });

  it('a failed job reports the platform reason', async () => {
    h.sim.jobs.scriptNext({ durationMs: 0, outcome: { kind: 'fail', reason: 'product not visible' } });
    const s = structured(await h.call(TOOL, v2));
    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; reason?: string }[])[0]!;
    expect(job).toMatchObject({ status: 'failed', reason: expect.stringContaining('product not visible') });
  });
});
