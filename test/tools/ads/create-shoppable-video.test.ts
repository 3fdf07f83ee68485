import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import createShoppableVideo from '../../../tools/ads/create-shoppable-video.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_shoppable_video';
const POSTS = { method: 'POST', path: '/shopable/videos' } as const;
// Seeded sim pack (src/sim/seed.ts): gadgets = formats unboxing/product_showcase, durations 15/30 (default 15),
// video price 350.
const IMAGES = ['https://cdn.example.com/phone-front.png', 'https://cdn.example.com/phone-back.png'];
const BASE = { category: 'gadgets', format: 'unboxing', image_urls: IMAGES };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [createShoppableVideo, waitForJobs] as unknown as ToolSpec[] });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

const sentBody = () => h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path)?.body;

describe('create_shoppable_video', () => {
  it('is listed as billable with a short description, every field described', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toContain('list_shoppable_packs');
    const props = t.inputSchema.properties as Record<string, { description?: string }>;
    for (const name of ['category', 'format', 'image_urls', 'duration', 'context', 'aspect_ratio']) {
      expect(props[name]?.description, name).toBeTruthy();
    }
  });

  it('happy path: duration sent as a string, pack price quoted, the job completes with a video', async () => {
    const r = await h.call(TOOL, { ...BASE, duration: '30', context: 'desk setup' });
    const s = structured(r);
    expect(r.isError).toBeFalsy();
    expect(s).toMatchObject({ status: 'submitted', kind: 'shoppable_video', estimate: { credits: 350 } });
    expect(h.sim.log.count(POSTS)).toBe(1);
    expect(sentBody()).toEqual({ ...BASE, duration: '30', context: 'desk setup' });

    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; outputs?: { url: string; media: string }[] }[])[0]!;
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
  });

  it("fills the pack's default duration when none is given, and normalises '15s'", async () => {
    expect(structured(await h.call(TOOL, BASE)).status).toBe('submitted');
    expect(sentBody()).toMatchObject({ duration: '15' });
    h.sim.log.clear();
    expect(structured(await h.call(TOOL, { ...BASE, duration: '30s' })).status).toBe('submitted');
    expect(sentBody()).toMatchObject({ duration: '30' });
  });

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['unknown category', { ...BASE, category: 'toys' }, /category"?: unknown/],
    [
      'format not allowed',
      { ...BASE, format: 'lookbook' },
      /format"?: unknown format 'lookbook' for category "gadgets" — call list_shoppable_packs/,
    ],
    [
      'duration not offered',
      { ...BASE, duration: '10' },
      /duration"?: not offered for category "gadgets"; allowed: 15, 30/,
    ],
    ['non-numeric duration', { ...BASE, duration: 'long' }, /duration/],
    ['duration as a number', { ...BASE, duration: 15 }, /duration/],
    ['no images', { ...BASE, image_urls: [] }, /image_urls/],
    [
      'too many images',
      { ...BASE, image_urls: Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`) },
      /image_urls/,
    ],
    ['a private image URL', { ...BASE, image_urls: [IMAGES[0], 'http://10.0.0.9/x.png'] }, /image_urls/],
    [
      'a single image_url instead of image_urls',
      { category: 'gadgets', format: 'unboxing', image_url: IMAGES[0] },
      /image_urls/,
    ],
  ];
  for (const [name, args, message] of rejected) {
    it(`rejects ${name} before any POST`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }

  // Issue 20: rules zod checks before anything is read or sent (not even the packs list): the 100 kB
  // context that used to reach the platform, and empty required values.
  const local: [string, Record<string, unknown>, RegExp][] = [
    ['a 100 kB context', { ...BASE, context: 'x'.repeat(100_000) }, /context: must be at most 2000 characters/],
    ['a context one past the bound', { ...BASE, context: 'x'.repeat(2001) }, /context.*2000/],
    ['an empty category', { ...BASE, category: '' }, /category: must not be empty/],
    ['an empty format', { ...BASE, format: '' }, /format/],
    ['an empty duration', { ...BASE, duration: '' }, /duration/],
  ];
  for (const [name, args, message] of local) {
    it(`refuses ${name} with no request at all`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sim.log.entries()).toEqual([]);
    });
  }

  it('accepts a context at the bound', async () => {
    const r = await h.call(TOOL, { ...BASE, context: 'x'.repeat(2000) });
    expect(r.isError, text(r)).toBeFalsy();
  });
});
