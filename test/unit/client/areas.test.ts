import { type FormData, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UPSCALE_QUOTE_TIMEOUT_MS } from '../../../src/client/areas/upscale.js';
import { createPlatformClient, type PlatformClientHandle } from '../../../src/client/index.js';
import { ConfigurationError } from '../../../src/errors.js';
import { BASE, json, KEY, ORIGIN, ok } from './mock-platform.js';

let agent: MockAgent;
let client: PlatformClientHandle;
const vendors = { C: 'famc', F: 'vendf', L: 'vendl', M: 'vendm' };

beforeEach(() => {
  agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  client = createPlatformClient({ baseUrl: BASE, apiKey: KEY, vendors, dispatcher: agent });
});
afterEach(async () => {
  await client.close();
  await agent.close();
});

const calls = () => agent.getCallHistory()?.calls() ?? [];
const reply = (method: 'GET' | 'POST', path: string, body: object) =>
  agent
    .get(ORIGIN)
    .intercept({ method, path: (p) => p.split('?')[0] === `/api${path}` })
    .reply(200, body, { headers: { ...json, 'x-request-id': 'srv' } });

const upscaleIds = { video_id: 'v1', project_id: 'p1', video_type: 'video', billing_id: 'b1' };
const attempt = { id: 'v1', billing_id: 'b1', status: 'processing' };
const videoStatus = ok({ status: 'completed', url: 'https://m/v.mp4' });

type Case = [string, () => Promise<{ data: unknown }>, 'GET' | 'POST', string, Record<string, string>, object, unknown];
// [label, call, method, path, query, response body, expected data subset]
// biome-ignore format: one line per route reads as a table
const cases: Case[] = [
  ['avatars.list', () => client.avatars.list({ gender: 'Female' }), 'GET', '/video/avatars', { gender: 'Female' }, ok([{ id: 'a', name: 'A' }]), [{ id: 'a' }]],
  ['voices.list', () => client.voices.list({ language: 'English', gender: 'Male' }), 'GET', '/video/voices', { language: 'English', gender: 'Male' }, ok([{ id: 'v', name: 'V' }]), [{ id: 'v' }]],
  ['actors.generate', () => client.actors.generate({ avatar_id: 'a' }), 'POST', '/video/generate', {}, ok({ id: 7 }), { id: '7' }],
  ['actors.status', () => client.actors.status('j1'), 'GET', '/video/status', { id: 'j1' }, videoStatus, { status: 'completed' }],
  ['products.generate v2', () => client.products.generate('v2', {}), 'POST', '/product-in-hand/vendl-v2/generate', {}, ok({ id: 'p' }), { id: 'p' }],
  ['products.generate human', () => client.products.generate('human', {}), 'POST', '/product-in-hand/vendm-human/generate', {}, ok({ id: 'p' }), { id: 'p' }],
  ['products.generate scenes', () => client.products.generate('scenes', {}), 'POST', '/product-in-hand/vendf/generate', {}, ok({ id: 'p' }), { id: 'p' }],
  ['products.status', () => client.products.status('p'), 'GET', '/product-in-hand/status', { id: 'p' }, videoStatus, { status: 'completed' }],
  ['ads.packs', () => client.ads.packs(), 'GET', '/shopable/packs', {}, ok({ anything: [1] }), { anything: [1] }],
  ['ads.createImage', () => client.ads.createImage({}), 'POST', '/shopable/images', {}, ok({ id: 'i' }), { id: 'i' }],
  ['ads.createVideo', () => client.ads.createVideo({}), 'POST', '/shopable/videos', {}, ok({ id: 'v' }), { id: 'v' }],
  ['ads.imageStatus', () => client.ads.imageStatus('i'), 'GET', '/shopable/images/status', { id: 'i' }, videoStatus, { status: 'completed' }],
  ['ads.videoStatus', () => client.ads.videoStatus('v'), 'GET', '/shopable/videos/status', { id: 'v' }, videoStatus, { status: 'completed' }],
  ['library.templates', () => client.library.templates({ category: 'ugc' }), 'GET', '/content-library/templates', { category: 'ugc' }, ok([{ id: 't', title: 'T', credit: 100 }]), [{ id: 't', credit: '100', category: [], require_fields: {} }]],
  ['library.categories', () => client.library.categories(), 'GET', '/content-library/categories', {}, ok([{ label: 'All', value: 'all' }]), [{ value: 'all' }]],
  ['library.generate', () => client.library.generate({ template_id: 't' }), 'POST', '/content-library/generate', {}, ok({ db_id: 'd' }), { db_id: 'd' }],
  ['library.status', () => client.library.status('d'), 'GET', '/content-library/status', { id: 'd' }, ok({ db_id: 'd', status: 'processing' }), { db_id: 'd' }],
  ['gestures.generate', () => client.gestures.generate({}), 'POST', '/gestures/generate', {}, ok({ id: 'g', credits_charged: 50 }), { id: 'g', credits_charged: 50 }],
  ['gestures.status', () => client.gestures.status('g'), 'GET', '/gestures/status', { id: 'g' }, { status: true, data: { id: 'g', status: 'completed', video_url: 'https://m/g.mp4' } }, { video_url: 'https://m/g.mp4' }],
  ['enterprise.models', () => client.enterprise.models(), 'GET', '/enterprise/models', {}, { models: [{ model: 'm', media: 'image', credits: '10' }] }, [{ model: 'm' }]],
  ['enterprise.generate', () => client.enterprise.generate({ model: 'm', params: {} }), 'POST', '/enterprise/generate', {}, { request_id: 'r/1', status: 'queued' }, { request_id: 'r/1' }],
  ['enterprise.status', () => client.enterprise.status('r/1', 'image'), 'GET', '/enterprise/status/r%2F1', { media: 'image' }, { request_id: 'r/1', status: 1, output: { output_link: ['https://m/i.png'] } }, { status: 1 }],
  ['family.generate', () => client.family.generate({ model: 'famc-2.5' }), 'POST', '/famc/generate', {}, ok({ id: 'f', estimated_credits: 30 }), { id: 'f' }],
  ['family.status', () => client.family.status('f'), 'GET', '/famc/status', { id: 'f' }, videoStatus, { status: 'completed' }],
  ['upscale.quote', () => client.upscale.quote({ video_id: 'v1' }), 'POST', '/upscale/quote', {}, ok({ quote: { credits: 40 } }), { quote: { credits: 40 } }],
  ['upscale.generate', () => client.upscale.generate({ video_id: 'v1' }), 'POST', '/upscale/generate', {}, ok(attempt), attempt],
  ['upscale.status', () => client.upscale.status(upscaleIds), 'GET', '/upscale/status', upscaleIds, ok(attempt), attempt],
];

describe('every area method hits its route', () => {
  it.each(cases)('%s', async (_label, call, method, path, query, body, expected) => {
    reply(method, path, body);
    const res = await call();
    expect(res.data).toMatchObject(expected as object);
    const [sent] = calls();
    expect(sent?.method).toBe(method);
    expect(new URL(sent!.fullUrl).pathname).toBe(`/api${path}`);
    expect(sent?.searchParams).toEqual(query);
    expect(sent?.fullUrl).not.toContain(KEY);
  });
});

describe('submit flags and timeouts', () => {
  it('marks every generation POST as submit, and the quote as a non-submit POST with a 420 s timeout', async () => {
    const spy = vi.spyOn(client.http, 'request').mockResolvedValue({ data: {}, requestId: 'x' } as never);
    await client.actors.generate({});
    await client.products.generate('v2', {});
    await client.ads.createImage({});
    await client.ads.createVideo({});
    await client.library.generate({});
    await client.gestures.generate({});
    await client.enterprise.generate({});
    await client.family.generate({});
    await client.upscale.generate({});
    await client.avatars.createCustom({ image: { url: 'https://m/p.png' } });
    await client.upscale.quote({});
    const specs = spy.mock.calls.map(([spec]) => spec);
    expect(specs.slice(0, 10).every((s) => s.method === 'POST' && s.submit)).toBe(true);
    expect(specs[10]).toMatchObject({ method: 'POST', submit: false, timeoutMs: UPSCALE_QUOTE_TIMEOUT_MS });
    expect(UPSCALE_QUOTE_TIMEOUT_MS).toBe(420_000);
  });

  it('uses envelopes everywhere except enterprise', async () => {
    const spy = vi.spyOn(client.http, 'request').mockResolvedValue({ data: { models: [] }, requestId: 'x' } as never);
    await client.enterprise.models();
    await client.enterprise.generate({});
    await client.enterprise.status('r', undefined);
    await client.actors.status('a');
    expect(spy.mock.calls.map(([s]) => s.envelope)).toEqual([false, false, false, true]);
  });
});

describe('vendor-named routes', () => {
  it('an unset vendor letter fails only that call, naming GENPLAT_VENDORS, with no request sent', async () => {
    const partial = createPlatformClient({ baseUrl: BASE, apiKey: KEY, vendors: { L: 'vendl' }, dispatcher: agent });
    await expect(partial.products.generate('human', {})).rejects.toBeInstanceOf(ConfigurationError);
    const err = await partial.family.generate({}).catch((e: unknown) => e as ConfigurationError);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as ConfigurationError).variable).toBe('GENPLAT_VENDORS');
    expect((err as ConfigurationError).message).toContain('<vendorC>');
    expect(calls()).toHaveLength(0);
    reply('POST', '/product-in-hand/vendl-v2/generate', ok({ id: 'ok' }));
    await expect(partial.products.generate('v2', {})).resolves.toMatchObject({ data: { id: 'ok' } });
  });
});

describe('custom avatar multipart', () => {
  it('sends URL parts as fields and bytes as a file part, with the boundary set by fetch', async () => {
    let headers: Record<string, string> = {};
    let form: FormData | undefined;
    agent
      .get(ORIGIN)
      .intercept({ method: 'POST', path: '/api/custom-avatar/generate' })
      .reply(
        200,
        (opts) => {
          headers = opts.headers as Record<string, string>;
          // Through fetch, the mock sees the FormData itself (the wire encoding happens below it).
          form = opts.body as unknown as FormData;
          return ok({ avatar_id: 'av1', selected_voice_id: 'vo1' });
        },
        { headers: json },
      );
    const res = await client.avatars.createCustom({
      image: { bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), filename: 'me.png', contentType: 'image/png' },
      voice: { url: 'https://m/voice.mp3' },
    });
    expect(res.data.avatar_id).toBe('av1');
    expect(headers['content-type']).toMatch(/^multipart\/form-data; boundary=.+/);
    expect(headers['x-api-key']).toBe(KEY);
    const image = form?.get('image') as File;
    expect(image.name).toBe('me.png');
    expect(image.type).toBe('image/png');
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    expect(form?.get('voice')).toBe('https://m/voice.mp3');
    expect([...(form?.keys() ?? [])].sort()).toEqual(['image', 'voice']);
  });

  it('omits the voice part when none is given', async () => {
    let form: FormData | undefined;
    agent
      .get(ORIGIN)
      .intercept({ method: 'POST', path: '/api/custom-avatar/generate' })
      .reply(
        200,
        (opts) => {
          form = opts.body as unknown as FormData;
          return ok({ avatar_id: 'av2' });
        },
        { headers: json },
      );
    await client.avatars.createCustom({ image: { url: 'https://m/p.png' } });
    expect([...(form?.keys() ?? [])]).toEqual(['image']);
    expect(form?.get('image')).toBe('https://m/p.png');
  });
});
