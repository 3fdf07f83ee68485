import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import createShoppableImage from '../../../tools/ads/create-shoppable-image.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_shoppable_image';
const POSTS = { method: 'POST', path: '/shopable/images' } as const;
// Seeded sim pack (src/sim/seed.ts): beauty = formats product_showcase/before_after/lifestyle, ratios 9:16/1:1/4:5,
// image price "100 credits".
const BASE = { category: 'beauty', format: 'before_after', image_url: 'https://cdn.example.com/serum.png' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [createShoppableImage, waitForJobs] as unknown as ToolSpec[] });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

describe('create_shoppable_image', () => {
  it('is listed as billable with a short description, every field described', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toContain('list_shoppable_packs');
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    const props = t.inputSchema.properties as Record<string, { description?: string }>;
    for (const name of ['category', 'format', 'image_url', 'context', 'aspect_ratio']) {
      expect(props[name]?.description, name).toBeTruthy();
    }
  });

  it('happy path: the pack price is the estimate, the job completes with an image', async () => {
    const r = await h.call(TOOL, { ...BASE, context: 'clean bathroom shelf', aspect_ratio: '4:5' });
    const s = structured(r);
    expect(r.isError).toBeFalsy();
    const pack = h.sim.data.packs.find((p) => p.value === 'beauty')!;
    expect(s).toMatchObject({
      status: 'submitted',
      kind: 'shoppable_image',
      // The sandbox's packs say "100 credits": a price text with its unit word (issue 27).
      estimate: { credits: Number.parseInt(pack.credits.image, 10), bounded: true },
    });
    expect(String(s.estimate && (s.estimate as { basis: string }).basis)).toContain('/shopable/packs');
    expect(s.handle).toMatch(/^shoppable_image:/);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toEqual({ ...BASE, context: 'clean bathroom shelf', aspect_ratio: '4:5' });

    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; outputs?: { url: string; media: string }[] }[])[0]!;
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]?.url).toMatch(/^http/);
  });

  it("sends the platform's spelling of a case variant", async () => {
    const r = await h.call(TOOL, { ...BASE, category: 'Beauty', format: 'Before_After' });
    expect(structured(r).status).toBe('submitted');
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toMatchObject({ category: 'beauty', format: 'before_after' });
  });

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    [
      'unknown category',
      { ...BASE, category: 'toys' },
      /category"?: unknown category 'toys' — call list_shoppable_packs; one of: beauty, fashion, gadgets/,
    ],
    [
      'format not allowed',
      { ...BASE, category: 'fashion' },
      /format"?: unknown format 'before_after' for category "fashion" — call list_shoppable_packs; allowed: /,
    ],
    ['aspect ratio not offered', { ...BASE, aspect_ratio: '16:9' }, /aspect_ratio"?: not offered/],
    ['malformed aspect ratio', { ...BASE, aspect_ratio: 'square' }, /aspect_ratio/],
    ['private image_url', { ...BASE, image_url: 'http://10.1.2.3/serum.png' }, /image_url/],
    ['metadata image_url', { ...BASE, image_url: 'http://169.254.169.254/latest' }, /image_url/],
    ['missing image_url', { category: 'beauty', format: 'before_after' }, /image_url/],
    [
      'a webhook (the route takes none)',
      { ...BASE, webhook_url: 'https://hooks.example.com/x' },
      /webhook_url|unrecognized/i,
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

/**
 * Issue 27: the packs shape is unpublished, so only a price text with its unit word under `credits` bounds the
 * quote. `price`, `cost` and bare numbers were read as displayed credits and auto-approved.
 */
describe('create_shoppable_image: pack prices the server cannot prove are unbounded (issue 27)', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a `price` field', { price: { image: 10, video: 10 } }],
    ['a `cost` field', { cost: '10' }],
    ['a bare number under `credits`', { credits: { image: 10, video: 10 } }],
    ['a numeric string under `credits`', { credits: { image: '10', video: '10' } }],
  ])('%s: confirmation required, nothing sent', async (_name, price) => {
    const q = await startHarness({ tools: [createShoppableImage] as unknown as ToolSpec[] });
    try {
      const pack = q.sim.data.packs.find((p) => p.value === 'beauty')! as unknown as Record<string, unknown>;
      delete pack.credits;
      Object.assign(pack, price);
      const r = await q.call(TOOL, BASE, { raw: true });
      expect(structured(r)).toMatchObject({ status: 'confirmation_required', estimate: { bounded: false } });
      expect(q.sim.log.count(POSTS)).toBe(0);
    } finally {
      await q.close();
    }
  });
});
