import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import createFamilyVideo from '../../../tools/enterprise/create-family-video.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_family_video';
const TOOLS = [createFamilyVideo, waitForJobs] as unknown as ToolSpec[];

let h: Harness;
let posts: () => number;
let model: (suffix: string) => string;

beforeAll(async () => {
  h = await startHarness({ tools: TOOLS });
  posts = () => h.sim.log.count({ method: 'POST', path: `/${h.sim.vendors.C}/generate` });
  model = (suffix) => `${h.sim.vendors.C}${suffix}`;
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

describe('create_family_video', () => {
  it('is billable, offers no webhook_url and no params envelope', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(t.description!.length).toBeLessThan(350);
    const props = Object.keys(t.inputSchema.properties ?? {});
    expect(props).toEqual(
      expect.arrayContaining(['model', 'prompt', 'duration', 'aspect_ratio', 'resolution', 'generate_audio']),
    );
    expect(props).not.toContain('webhook_url');
    expect(props).not.toContain('params');
  });

  it('happy path: top-level body, unpublished-price quote, platform figures in details, completes', async () => {
    const args = {
      model: model('-2.5'),
      prompt: 'a paper boat on a river',
      duration: 5,
      aspect_ratio: '16:9',
      resolution: '720p',
      generate_audio: true,
    };
    const r = await h.call(TOOL, args);
    expect(r.isError, text(r)).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ status: 'submitted', kind: 'family_video' });
    expect(s.handle).toMatch(/^family_video:/);
    expect(s.estimate).toMatchObject({ bounded: false, credits: h.config.maxCreditsPerCall });
    expect(s.details).toMatchObject({ estimated_credits: expect.any(Number) });
    expect(posts()).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === `/${h.sim.vendors.C}/generate`);
    expect(sent?.body).toEqual(args);

    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; outputs?: { media: string }[] }[])[0]!;
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
  });

  it('no published price before submission: quotes the operator table per model, else the ceiling, and asks', async () => {
    const table = { [`create_family_video:${model('-2.5')}`]: 400, create_family_video: 300 };
    const q = await startHarness({
      sim: h.sim,
      tools: TOOLS,
      config: { confirm: { mode: 'never' }, priceTable: table },
    });
    try {
      const quote = async (args: Record<string, unknown>) =>
        structured(await q.call(TOOL, { prompt: 'p', ...args }, { raw: true }));
      expect(await quote({ model: model('-2.5'), duration: 10 })).toMatchObject({
        status: 'confirmation_required',
        estimate: { credits: 400, bounded: false },
      });
      expect(await quote({ model: model('-2.0-fast'), duration: 5 })).toMatchObject({
        status: 'confirmation_required',
        estimate: { credits: 300, bounded: false },
      });
      expect(posts()).toBe(0);
    } finally {
      await q.close();
    }
  });

  const rejected: [string, () => Record<string, unknown>, RegExp][] = [
    [
      'not a family model',
      () => ({ model: 'flux-2-pro', prompt: 'p' }),
      /model"?: unknown family model 'flux-2-pro' — call list_models \(family ids: .*-2\.5/,
    ],
    ['fractional duration', () => ({ model: model('-2.5'), prompt: 'p', duration: 5.5 }), /duration/],
    ['string duration', () => ({ model: model('-2.5'), prompt: 'p', duration: '5' }), /duration/],
    // Issue 20: a per-second price must never see 0 or a negative duration (field error naming duration).
    ['zero duration', () => ({ model: model('-2.5'), prompt: 'p', duration: 0 }), /duration.*1/],
    ['negative duration', () => ({ model: model('-2.5'), prompt: 'p', duration: -5 }), /duration.*1/],
    ['empty prompt', () => ({ model: model('-2.5'), prompt: '' }), /prompt/],
    ['malformed aspect ratio', () => ({ model: model('-2.5'), prompt: 'p', aspect_ratio: 'wide' }), /aspect_ratio/],
    [
      'webhook_url is not offered',
      () => ({ model: model('-2.5'), prompt: 'p', webhook_url: 'https://h.example.com/x' }),
      /webhook_url/,
    ],
  ];

  it.each(rejected)('rejects %s with zero POSTs', async (_name, args, message) => {
    const r = await h.call(TOOL, args());
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(posts()).toBe(0);
  });

  it('fails at validate, naming GENPLAT_VENDORS, when vendor C is not configured', async () => {
    const { C: _c, ...vendors } = h.sim.vendors;
    const q = await startHarness({ sim: h.sim, tools: TOOLS, config: { vendors } });
    try {
      const r = await q.call(TOOL, { model: model('-2.5'), prompt: 'p' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/GENPLAT_VENDORS/);
      expect(h.sim.log.count({ method: 'POST' })).toBe(0);
    } finally {
      await q.close();
    }
  });
});
