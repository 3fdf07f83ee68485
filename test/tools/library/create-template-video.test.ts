import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import createTemplateVideo from '../../../tools/library/create-template-video.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_template_video';
const POSTS = { method: 'POST', path: '/content-library/generate' } as const;

let h: Harness;
// Seeded sim templates (src/sim/seed.ts): "Product spotlight" has an input field with max 40 and an image field;
// "Testimonial story" has input, textarea (max 500) and image fields.
let spotlight: { id: string; title: string; credit: string };
let testimonial: { id: string; title: string };
const SPOTLIGHT_FIELDS = { product_name: 'Thermo bottle', product_image: 'https://cdn.example.com/bottle.png' };

beforeAll(async () => {
  h = await startHarness({
    tools: [createTemplateVideo, waitForJobs] as unknown as ToolSpec[],
    config: { webhookAllowlist: ['hooks.example.com'] },
  });
  spotlight = h.sim.data.templates.find((t) => t.title === 'Product spotlight')!;
  testimonial = h.sim.data.templates.find((t) => t.title === 'Testimonial story')!;
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

describe('create_template_video', () => {
  it('is listed as billable with a short description, every field described', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toContain('list_templates');
    // Variants route to create_campaign (issue 29 item 8); waiting is the envelope's next_step, not the listing's.
    expect(t.description).toContain('create_campaign');
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    const props = t.inputSchema.properties as Record<string, { description?: string }>;
    for (const name of ['template_id', 'fields', 'project_id', 'webhook_url']) {
      expect(props[name]?.description, name).toBeTruthy();
    }
    expect(t.inputSchema.required).toEqual(expect.arrayContaining(['template_id', 'fields']));
  });

  it('happy path: dynamic fields go top-level, the estimate is the template credit, the job completes', async () => {
    const r = await h.call(TOOL, { template_id: spotlight.id, fields: SPOTLIGHT_FIELDS });
    const s = structured(r);
    expect(r.isError).toBeFalsy();
    expect(s).toMatchObject({
      status: 'submitted',
      kind: 'template_video',
      estimate: { credits: 200, api_units: 2 }, // "200 credits"
    });
    expect(s.handle).toMatch(/^template_video:/);
    expect(h.sim.log.count(POSTS)).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toEqual({ template_id: spotlight.id, ...SPOTLIGHT_FIELDS });
    const dbId = String(s.handle).slice('template_video:'.length);
    expect((s.remote as { id?: string }).id).toBe(dbId);

    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; outputs?: { url: string; media: string }[] }[])[0]!;
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
    expect(job.outputs?.[0]?.url).toMatch(/^http/);
  });

  it('passes project_id through and reports it', async () => {
    const first = structured(await h.call(TOOL, { template_id: spotlight.id, fields: SPOTLIGHT_FIELDS }));
    const project = (first.remote as { project_id?: string }).project_id;
    expect(project).toBeTruthy();
    h.sim.log.clear();
    const r = await h.call(TOOL, {
      template_id: spotlight.id,
      fields: { ...SPOTLIGHT_FIELDS, product_name: 'Other bottle' },
      project_id: project,
    });
    expect(structured(r)).toMatchObject({ status: 'submitted', remote: { project_id: project } });
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === POSTS.path);
    expect(sent?.body).toMatchObject({ project_id: project });
  });

  it('with confirmation required, quotes first and sends only on the confirmed call', async () => {
    const q = await startHarness({
      sim: h.sim,
      tools: [createTemplateVideo] as unknown as ToolSpec[],
      config: { confirm: { mode: 'always' } },
    });
    try {
      const args = { template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_name: 'Quoted' } };
      const first = structured(await q.call(TOOL, args));
      expect(first).toMatchObject({ status: 'confirmation_required', estimate: { credits: 200 } });
      expect(h.sim.log.count(POSTS)).toBe(0);
      const second = structured(await q.call(TOOL, { ...args, confirmation_token: first.confirmation_token }));
      expect(second.status).toBe('submitted');
      expect(h.sim.log.count(POSTS)).toBe(1);
    } finally {
      await q.close();
    }
  });

  it('a template credit with no bound is an unpublished price: quoted at the ceiling, never auto-approved', async () => {
    // A fresh simulator, so the odd template is there before the catalog's first fetch.
    const q = await startHarness({ tools: [createTemplateVideo] as unknown as ToolSpec[] });
    try {
      const odd = {
        ...q.sim.data.templates[0]!,
        id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4eff',
        credit: 'varies by length',
      };
      q.sim.data.templates.push(odd);
      const fields = Object.fromEntries(
        Object.entries(odd.require_fields).map(([k, f]) => [
          k,
          f.type === 'image' ? 'https://cdn.example.com/a.png' : 'x',
        ]),
      );
      const r = await q.call(TOOL, { template_id: odd.id, fields }, { raw: true });
      expect(structured(r)).toMatchObject({
        status: 'confirmation_required',
        estimate: { credits: q.config.maxCreditsPerCall, bounded: false },
      });
      expect(text(r)).toMatch(/varies by length/);
      expect(q.sim.log.count(POSTS)).toBe(0);
    } finally {
      await q.close();
    }
  });

  /**
   * Issue 27: the template's credit value goes through the one price grammar (no regex reader of its own): a
   * bare figure is API units, "1.000" is unbounded, and a per-reference-image term counts the image fields.
   */
  describe('template prices read by the one grammar (issue 27)', () => {
    const withTemplate = async (
      credit: string,
      run: (q: Harness, id: string, fields: Record<string, string>) => Promise<void>,
    ) => {
      const q = await startHarness({ tools: [createTemplateVideo] as unknown as ToolSpec[] });
      try {
        // "Before / after": two image fields and a caption.
        const base = q.sim.data.templates.find((t) => t.title === 'Before / after')!;
        const t = { ...base, id: '6f1c2a9e-3b7d-4c1a-9e55-0a1b2c3d4e27', credit };
        q.sim.data.templates.push(t);
        const fields = {
          before_image: 'https://cdn.example.com/a.png',
          after_image: 'https://cdn.example.com/b.png',
          caption: 'x',
        };
        await run(q, t.id, fields);
      } finally {
        await q.close();
      }
    };
    const balance = (q: Harness) => q.sim.accounts.get(q.sim.apiKey)!.credits;

    it('"1.000" (a thousand in many locales) is unbounded and not sent; it was quoted 1 credit and sent', async () => {
      await withTemplate('1.000', async (q, id, fields) => {
        const r = await q.call(TOOL, { template_id: id, fields }, { raw: true });
        expect(structured(r)).toMatchObject({ status: 'confirmation_required', estimate: { bounded: false } });
        expect(q.sim.log.count(POSTS)).toBe(0);
      });
    });

    it('"0.5" is quoted as API units (50), never 1 credit, and the charge is within it', async () => {
      await withTemplate('0.5', async (q, id, fields) => {
        const before = balance(q);
        const s = structured(await q.call(TOOL, { template_id: id, fields }, { raw: true }));
        expect(s).toMatchObject({ status: 'submitted', estimate: { credits: 50, bounded: true } });
        expect(before - balance(q)).toBeLessThanOrEqual(50);
      });
    });

    it('a price per reference image counts the template image fields', async () => {
      await withTemplate('100 credits plus 5 credits per reference image', async (q, id, fields) => {
        const before = balance(q);
        const s = structured(await q.call(TOOL, { template_id: id, fields }, { raw: true }));
        expect(s).toMatchObject({ status: 'submitted', estimate: { credits: 110, bounded: true } });
        expect(before - balance(q)).toBe(110);
      });
    });
  });

  const rejected: [string, () => Record<string, unknown>, RegExp][] = [
    [
      'unknown template',
      () => ({ template_id: '00000000-0000-4000-8000-000000000000', fields: SPOTLIGHT_FIELDS }),
      /template_id"?: unknown template '00000000-0000-4000-8000-000000000000' — call list_templates/,
    ],
    ['template_id not a UUID', () => ({ template_id: 'spotlight', fields: SPOTLIGHT_FIELDS }), /template_id/],
    [
      'missing require_field',
      () => ({ template_id: spotlight.id, fields: { product_name: 'x' } }),
      /fields\.product_image"?: required by template "Product spotlight"/,
    ],
    [
      'blank require_field',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_name: '  ' } }),
      /fields\.product_name"?: required by template/,
    ],
    [
      'unknown field',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, subtitle: 'x' } }),
      /fields\.subtitle"?: not a field of this template/,
    ],
    [
      'input over max',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_name: 'x'.repeat(41) } }),
      /fields\.product_name"?: at most 40 characters/,
    ],
    [
      'textarea over max',
      () => ({
        template_id: testimonial.id,
        fields: { headline: 'h', story: 's'.repeat(501), portrait: 'https://cdn.example.com/p.png' },
      }),
      /fields\.story"?: at most 500 characters/,
    ],
    [
      'private URL in an image field',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_image: 'http://192.168.1.5/p.png' } }),
      /fields\.product_image"?: must be a public http\(s\) URL/,
    ],
    [
      'data URI in an image field',
      () => ({
        template_id: spotlight.id,
        fields: { ...SPOTLIGHT_FIELDS, product_image: 'data:image/png;base64,AAAA' },
      }),
      /fields\.product_image/,
    ],
    [
      'non-string field value',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_name: 5 } }),
      /fields|product_name/,
    ],
    [
      'webhook not on the allow-list',
      () => ({ template_id: spotlight.id, fields: SPOTLIGHT_FIELDS, webhook_url: 'https://evil.example.net/hook' }),
      /webhook_url/,
    ],
    [
      'plain-http webhook',
      () => ({ template_id: spotlight.id, fields: SPOTLIGHT_FIELDS, webhook_url: 'http://hooks.example.com/hook' }),
      /https[\s\S]*webhook_url|webhook_url: [\s\S]*https/,
    ],
  ];
  for (const [name, args, message] of rejected) {
    it(`rejects ${name} before any POST`, async () => {
      const r = await h.call(TOOL, args());
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }

  // Issue 20: refused before anything is read (not even the template list).
  const local: [string, () => Record<string, unknown>, RegExp][] = [
    [
      'an empty field value',
      () => ({ template_id: spotlight.id, fields: { ...SPOTLIGHT_FIELDS, product_name: '' } }),
      /fields\.product_name: must not be empty/,
    ],
    ['an empty template_id', () => ({ template_id: '', fields: SPOTLIGHT_FIELDS }), /template_id: must not be empty/],
  ];
  for (const [name, args, message] of local) {
    it(`refuses ${name} with no request at all`, async () => {
      const r = await h.call(TOOL, args());
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sim.log.entries()).toEqual([]);
    });
  }
});
