/**
 * Review, invariant 7: every URL an agent can get into a billable request goes through the public-URL
 * guard, and every callback URL through the webhook allow-list. The typed fields are guarded in zod; these
 * cases are the free-form containers: run_model `params` (models without a published schema are passed
 * through, and published ones are mostly loose) and template `fields`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';

const POSTS = { method: 'POST', path: '/enterprise/generate' } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const t2v = (sim: Simulator) => `${sim.vendors.D}-video-t2v`;

describe('run_model params', () => {
  it.each([
    [
      'unpublished model, media list',
      'seedream-4-edit',
      { prompt: 'p', image_urls: ['http://169.254.169.254/latest'] },
    ],
    [
      'unpublished model, nested',
      'seedream-4-edit',
      { prompt: 'p', image_urls: ['https://cdn.example.com/a.png'], extra: { mask_url: 'http://10.0.0.7/m.png' } },
    ],
    ['unpublished model, other scheme', 'flux-2-pro', { prompt: 'p', init_image: 'file:///etc/passwd' }],
    [
      'loose published model, extra field',
      't2v',
      { prompt: 'a cat', duration: 10, reference_url: 'http://127.0.0.1:8080/x' },
    ],
  ])('%s: a private URL is refused naming the field, 0 POSTs', async (_name, model, params) => {
    h = await startHarness();
    const r = await h.call('run_model', { model: model === 't2v' ? t2v(h.sim) : model, params });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/params\.\S+.*(public http|http\(s\))/);
    expect(h.sim.log.count(POSTS)).toBe(0);
  });

  it.each([
    ['unpublished model', 'flux-2-pro', { prompt: 'p', webhook_url: 'https://evil.example.com/h' }],
    ['loose published model', 't2v', { prompt: 'a cat', duration: 10, callback_url: 'https://evil.example.com/h' }],
  ])(
    '%s: a callback URL inside params is refused (the allow-list applies to webhook_url only)',
    async (_n, model, params) => {
      h = await startHarness({ config: { webhookAllowlist: ['hooks.example.com'] } });
      const r = await h.call('run_model', { model: model === 't2v' ? t2v(h.sim) : model, params });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/params\.(webhook_url|callback_url)/);
      expect(h.sim.log.count(POSTS)).toBe(0);
    },
  );

  it('public URLs and plain text in params still go through', async () => {
    h = await startHarness();
    const r = await h.call('run_model', {
      model: 'seedream-4-edit',
      params: { prompt: 'see https://example.com for ideas', image_urls: ['https://cdn.example.com/a.png'] },
    });
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(1);
  });
});

describe('webhook_url allow-list on every tool that has one (closed)', () => {
  it.each(['create_talking_video', 'create_product_video', 'create_template_video', 'run_model'])(
    '%s refuses a host off the list with 0 requests',
    async (tool) => {
      const { billableExample } = await import('../helpers/examples.js');
      h = await startHarness({ config: { webhookAllowlist: ['hooks.example.com'] } });
      const r = await h.call(tool, { ...billableExample(tool).args(h.sim), webhook_url: 'https://evil.example.com/h' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/allow-list/);
      expect(h.sim.log.count({ method: 'POST' })).toBe(0);
    },
  );
});
