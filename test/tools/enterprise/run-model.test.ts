import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import runModel from '../../../tools/enterprise/run-model.js';
import getJob from '../../../tools/jobs/get-job.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'run_model';
const POSTS = { method: 'POST', path: '/enterprise/generate' } as const;
const IMG = 'https://cdn.example.com/a.png';
const HOOK = 'https://hooks.example.com/genplat';

let h: Harness;
/** Catalog ids in the sandbox (vendor letters resolved from the simulator's VendorMap). */
let id: (letter: 'A' | 'C' | 'D' | 'G' | 'H' | 'I' | 'J' | 'K', suffix: string) => string;

beforeAll(async () => {
  h = await startHarness({
    tools: [runModel, waitForJobs, getJob] as unknown as ToolSpec[],
    config: { webhookAllowlist: ['hooks.example.com'] },
  });
  id = (letter, suffix) => `${h.sim.vendors[letter]}${suffix}`;
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

type Job = { status: string; outputs?: { url: string; media: string }[] };

async function waitDone(handle: string): Promise<Job> {
  const w = await h.call('wait_for_jobs', { handles: [handle], max_wait_s: 20 });
  return (structured(w).jobs as Job[])[0]!;
}

describe('run_model: listing', () => {
  it('is billable, short, with an open params object (no per-model unions in tools/list)', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(350);
    expect(t.description).toContain('genplat://models/{model}');
    expect(t.description).toContain('list_models');
    // Variants route to create_campaign (issue 29 item 8); waiting is the envelope's next_step, not the listing's.
    expect(t.description).toContain('create_campaign');
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    const props = t.inputSchema.properties as Record<string, Record<string, unknown>>;
    for (const name of ['model', 'params', 'project_id', 'webhook_url'])
      expect(props[name]?.description, name).toBeTruthy();
    expect(JSON.stringify(t.inputSchema)).not.toMatch(/anyOf|oneOf/);
    expect(t.inputSchema.required).toEqual(expect.arrayContaining(['model', 'params']));
  });
});

describe('run_model: happy paths', () => {
  it('image model: params inside params, spec price, completes with image outputs', async () => {
    const model = id('D', '-imagine-image-edit');
    const params = { prompt: 'make it blue', image_urls: [IMG], output_format: 'png' };
    const r = await h.call(TOOL, { model, params });
    expect(r.isError, text(r)).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ status: 'submitted', kind: 'model', estimate: { credits: 10, api_units: 0.1 } });
    expect(s.handle).toMatch(/^model:image:/);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toEqual({ model, params });
    expect((s.remote as { id?: string; project_id?: string }).project_id).toBeTruthy();

    const job = await waitDone(String(s.handle));
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'image' });
  });

  it('video model with a webhook: webhook_url and project_id top-level, completes via get_job', async () => {
    const model = id('H', '-omni-flash-1-1-i2v');
    const first = structured(await h.call(TOOL, { model, params: { prompt: 'p', image_url: IMG } }));
    const project = (first.remote as { project_id?: string }).project_id;
    h.sim.log.clear();
    const params = { prompt: 'walk forward', image_url: IMG, duration: 5, resolution: '720p' };
    const r = await h.call(TOOL, { model, params, project_id: project, webhook_url: HOOK });
    expect(r.isError, text(r)).toBeFalsy();
    const s = structured(r);
    expect(s.handle).toMatch(/^model:video:/);
    expect(s.estimate).toMatchObject({ credits: 40 }); // sandbox catalog: 8 credits per second × 5 s
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toEqual({ model, params, project_id: project, webhook_url: HOOK });

    await waitDone(String(s.handle));
    const g = structured(await h.call('get_job', { handle: s.handle }));
    expect(g.status).toBe('completed');
    expect((g.outputs as Job['outputs'])?.[0]).toMatchObject({ media: 'video' });
  });

  it('a model without a published schema is passed through with a warning', async () => {
    const r = await h.call(TOOL, { model: 'flux-2-pro', params: { prompt: 'a red fox' } });
    expect(r.isError, text(r)).toBeFalsy();
    const s = structured(r);
    expect(s.status).toBe('submitted');
    expect((s.details as { warning?: string }).warning).toMatch(/unchecked/);
    expect(s.estimate).toMatchObject({ credits: 12 }); // the catalog's "12 credits per image"
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  it('per-image models quote num_images × the catalog price', async () => {
    const r = await h.call(TOOL, {
      model: id('I', '-edit'),
      params: { prompt: 'p', image_urls: [IMG], num_images: 3 },
    });
    expect(structured(r).estimate).toMatchObject({ credits: 45 }); // "15 credits per image" × 3
  });
});

describe('run_model: the issue-18 review rows are bounded right or unbounded', () => {
  const quote = async (model: string, params: Record<string, unknown>) => {
    const r = await h.call(TOOL, { model, params }, { raw: true });
    return structured(r).estimate as { credits: number; bounded: boolean };
  };
  it('an empty reference list does not hide a 10-item image_urls', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `${IMG}?${i}`);
    expect(await quote('seedream-4-edit', { prompt: 'p', reference_image_urls: [], image_urls: ten })).toMatchObject({
      credits: 16,
      bounded: true,
    });
  });
  it('models whose spec ties the price to output count multiply by a count they are sent', async () => {
    expect(await quote(id('K', '-v3-edit'), { prompt: 'p', image_url: IMG, num_images: 4 })).toMatchObject({
      credits: 80,
    });
    expect(await quote(id('G', '-image-2.5-sunburst-edit'), { prompt: 'p', image_urls: [IMG], n: 4 })).toMatchObject({
      credits: 256,
    });
  });
  it.each([
    ['tempo-1-t2v', { duration: 10 }],
    ['tempo-1-long', {}],
    ['lumen-1-hd', { resolution: '4K' }],
    ['lumen-1-tiers', {}],
    ['lumen-1-plus', {}],
    ['lumen-1-mp', {}],
    ['lumen-1-batch', {}],
    ['flux-2-pro', { batch_size: 2, num_inference_steps: 40 }],
  ])('%s %j: a wording or param the grammar cannot prove → unbounded', async (model, params) => {
    const e = await quote(model, { prompt: 'p', ...params });
    expect(e).toMatchObject({ bounded: false });
    expect(h.sim.log.count(POSTS)).toBe(0);
  });
  it('"per generated image" is read, and multiplied by the count', async () => {
    expect(await quote('lumen-1', { prompt: 'p', number_of_images: 3 })).toMatchObject({ credits: 30, bounded: true });
  });
});

describe('run_model: rejections send nothing', () => {
  const cases: [string, () => Record<string, unknown>, RegExp][] = [
    [
      'unknown model',
      () => ({ model: 'no-such-model', params: { prompt: 'p' } }),
      /model"?: unknown model 'no-such-model' — call list_models/,
    ],
    [
      'dedicated-family id',
      () => ({ model: `${h.sim.vendors.C}-2.5`, params: { prompt: 'p' } }),
      /model"?: .*use create_family_video/,
    ],
    [
      'strict model, unknown param',
      () => ({ model: id('J', '-broll'), params: { prompt: 'p', image_url: IMG, duration: 5 } }),
      /params\.duration"?: unknown parameter: this model is strict/,
    ],
    [
      'missing required param',
      () => ({ model: id('D', '-imagine-image-edit'), params: { prompt: 'p' } }),
      /params\.image_urls"?: is required/,
    ],
    [
      'enum',
      () => ({ model: id('I', '-edit'), params: { prompt: 'p', image_urls: [IMG], resolution: '8K' } }),
      /params\.resolution"?: must be one of 1K, 2K, 4K/,
    ],
    [
      'range',
      () => ({ model: id('H', '-omni-flash-1-1-i2v'), params: { prompt: 'p', image_url: IMG, duration: 11 } }),
      /params\.duration"?: must be at most 10/,
    ],
    [
      'fractional duration',
      () => ({
        model: id('D', '-imagine-video-1-5-r2v'),
        params: { prompt: 'p', reference_image_urls: [IMG], duration: 5.5 },
      }),
      /params\.duration"?: must be an integer/,
    ],
    [
      'string duration',
      () => ({
        model: id('D', '-imagine-video-1-5-r2v'),
        params: { prompt: 'p', reference_image_urls: [IMG], duration: '5' },
      }),
      /params\.duration"?: must be an integer/,
    ],
    [
      'count',
      () => ({ model: id('G', '-image-2.5-flare-edit'), params: { prompt: 'p', image_urls: [IMG, IMG, IMG] } }),
      /params\.image_urls"?: must have at most 2 items/,
    ],
    [
      'custom size',
      () => ({
        model: id('G', '-image-2.5-flare-edit'),
        params: { prompt: 'p', image_urls: [IMG], size: '1000x1000' },
      }),
      /params\.size"?: custom width and height must be multiples of 16/,
    ],
    [
      'transparent + jpeg',
      () => ({
        model: id('G', '-image-2.5-flare-edit'),
        params: { prompt: 'p', image_urls: [IMG], background: 'transparent', output_format: 'jpeg' },
      }),
      /params\.background"?: transparent requires output_format png or webp/,
    ],
    [
      'data URI where not allowed',
      () => ({ model: id('J', '-broll'), params: { prompt: 'p', image_url: 'data:image/png;base64,AAAA' } }),
      /params\.image_url"?: data URIs are not accepted/,
    ],
    [
      'private media URL',
      () => ({ model: id('K', '-v3-edit'), params: { prompt: 'p', image_url: 'http://10.0.0.5/x.png' } }),
      /params\.image_url"?: must be a public http\(s\) URL/,
    ],
    [
      'forbidden field on <vendorH>',
      () => ({ model: id('H', '-omni-flash-1-1-i2v'), params: { prompt: 'p', image_url: IMG, seed: 3 } }),
      /params\.seed"?: not accepted by this model/,
    ],
    [
      'client price',
      () => ({ model: id('H', '-omni-flash-1-1-i2v'), params: { prompt: 'p', image_url: IMG, price: 1 } }),
      /params\.price"?: must not be sent/,
    ],
    [
      'empty params on a pass-through model',
      () => ({ model: 'flux-2-pro', params: {} }),
      /params"?: must not be empty/,
    ],
    [
      'webhook on a polling-only model',
      () => ({ model: id('C', '-1-5-pro'), params: { prompt: 'p' }, webhook_url: HOOK }),
      /webhook_url"?: this model is polling-only/,
    ],
  ];

  // Issue 18: a count or duration of 0, negative, fractional or text is a field error under every name, on
  // models with and without a published schema; none is priced (a 0 would quote 0 while the platform bills).
  const COUNT_NAMES = ['num_images', 'n', 'num_outputs', 'max_images', 'batch_size', 'number_of_images', 'num_videos'];
  for (const value of [0, -5, 1.5, 'abc']) {
    for (const name of [...COUNT_NAMES, 'duration']) {
      cases.push([
        `${name} = ${JSON.stringify(value)}, no published schema`,
        () => ({ model: 'flux-2-pro', params: { prompt: 'p', [name]: value } }),
        new RegExp(`params\\.${name}"?: must be an integer of at least 1`),
      ]);
    }
    cases.push([
      `n = ${JSON.stringify(value)} on a loose published model`,
      () => ({ model: id('K', '-v3-edit'), params: { prompt: 'p', image_url: IMG, n: value } }),
      /params\.n"?: must be an integer of at least 1/,
    ]);
    cases.push([
      `duration = ${JSON.stringify(value)} on a per-second model`,
      () => ({ model: id('C', '-2-0-i2v'), params: { prompt: 'p', image_url: IMG, duration: value } }),
      /params\.duration"?: must be an integer of at least 1/,
    ]);
  }

  // Issue 20: an empty or blank string on a published model (declared optional fields of loose models, their
  // undeclared pass-through keys, nested values) names the field; nothing is read or sent.
  cases.push(
    [
      'empty optional string on a loose published model',
      () => ({ model: id('C', '-2-0-i2v'), params: { prompt: 'p', image_url: IMG, resolution: '' } }),
      /params\.resolution"?: must not be empty/,
    ],
    [
      'empty undeclared param on a loose published model',
      () => ({ model: id('K', '-v3-edit'), params: { prompt: 'p', image_url: IMG, extra_style: '' } }),
      /params\.extra_style"?: must not be empty/,
    ],
    [
      'blank prompt on a published model',
      () => ({ model: id('A', '-v2.6-edit'), params: { prompt: '   ', image_urls: [IMG] } }),
      /params\.prompt"?: must not be empty/,
    ],
    [
      'empty prompt on a published model',
      () => ({ model: id('G', '-image-2.5-sunburst-edit'), params: { prompt: '', image_urls: [IMG] } }),
      /params\.prompt"?: must not be empty/,
    ],
    [
      'empty string nested in a published model param',
      () => ({ model: id('K', '-v3-edit'), params: { prompt: 'p', image_url: IMG, extra: { tags: ['a', ''] } } }),
      /params\.extra\.tags\[1\]"?: must not be empty/,
    ],
  );

  it.each(cases)('%s', async (_name, args, message) => {
    const r = await h.call(TOOL, args());
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(h.sim.log.count(POSTS)).toBe(0);
  });

  it('accepts a base64 data URI where the spec allows it (<vendorH> i2v)', async () => {
    const r = await h.call(TOOL, {
      model: id('H', '-omni-flash-1-1-i2v'),
      params: { prompt: 'p', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect(h.sim.log.count(POSTS)).toBe(1);
  });
});
