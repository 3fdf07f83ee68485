import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, fetchBytes, get, isMp4, isPng, post, type Simulator, startSimulator, waitForJob } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.log.clear();
});

const actorBody = { avatar_id: 'av_ava', voice_script: 'Hello there.' };

describe('startup', () => {
  it('listens on loopback with the /api prefix and a sandbox key', () => {
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(sim.origin).toBe(sim.baseUrl.replace(/\/api$/, ''));
    expect(sim.apiKey).toMatch(/^sk-sandbox-[0-9a-f]+$/);
  });
});

describe('auth', () => {
  it('401 without a key, with the spec body', async () => {
    const r = await get(sim, '/video/avatars', undefined, { key: null });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ status: false, message: 'not authenticated' });
  });

  it('401 with a wrong key', async () => {
    const r = await get(sim, '/video/avatars', undefined, { key: 'sk-wrong' });
    expect(r.status).toBe(401);
  });

  it('401 for a Bearer token instead of X-Api-Key', async () => {
    const r = await get(sim, '/video/avatars', undefined, {
      key: null,
      headers: { Authorization: `Bearer ${sim.apiKey}` },
    });
    expect(r.status).toBe(401);
  });

  it('401 for a key in the query string, even next to a valid header', async () => {
    expect((await get(sim, '/video/avatars', { api_key: sim.apiKey }, { key: null })).status).toBe(401);
    expect((await get(sim, '/video/avatars', { api_key: sim.apiKey })).status).toBe(401);
  });

  it('accepts the header name in any case', async () => {
    const r = await get(sim, '/video/avatars', undefined, { key: null, headers: { 'x-API-kEy': sim.apiKey } });
    expect(r.status).toBe(200);
  });

  it('401 for an inactive account', async () => {
    sim.accounts.add({ key: 'sk-inactive', subscription: 'inactive' });
    expect((await get(sim, '/video/avatars', undefined, { key: 'sk-inactive' })).status).toBe(401);
  });

  it('401 precedes 404 for unknown paths', async () => {
    expect((await get(sim, '/no/such/path', undefined, { key: null })).status).toBe(401);
  });
});

describe('envelope and headers', () => {
  it('wraps data in {status, message, data} with extra unknown fields and an x-request-id', async () => {
    const r = await get(sim, '/video/avatars');
    expect(r.status).toBe(200);
    expect(r.json.status).toBe(true);
    expect(typeof r.json.message).toBe('string');
    expect(Array.isArray(r.json.data)).toBe(true);
    expect(r.json.trace).toBeDefined();
    expect(r.json.data[0]._sim).toBe(true);
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('echoes the client x-request-id', async () => {
    const r = await get(sim, '/video/avatars', undefined, { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('trace-abc-123');
  });

  it('x-request-id on errors too, and differs between requests', async () => {
    const a = await get(sim, '/nope');
    const b = await get(sim, '/nope');
    expect(a.status).toBe(404);
    expect(a.json).toMatchObject({ status: false });
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('405 for a known path with the wrong method', async () => {
    expect((await post(sim, '/video/avatars', {})).status).toBe(405);
  });
});

describe('request bodies', () => {
  it('400 for invalid JSON', async () => {
    const r = await call(sim, 'POST', '/video/generate', { body: '{"avatar_id":' });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^body: /);
  });

  it('400 for a non-JSON content type', async () => {
    const r = await call(sim, 'POST', '/video/generate', {
      body: 'avatar_id=av_ava',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^content-type: /);
  });

  it.each(['user_id', 'credits', 'price', 'billing'])('400 for the billing control %s, nothing charged', async (f) => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await post(sim, '/video/generate', { ...actorBody, [f]: 'x' });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(new RegExp(`^${f}: `));
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before);
  });
});

describe('subscription and credits', () => {
  it('403 for a free subscription on a billable POST; reads still work', async () => {
    sim.accounts.add({ key: 'sk-free', subscription: 'free' });
    const r = await post(sim, '/video/generate', actorBody, { key: 'sk-free' });
    expect(r.status).toBe(403);
    expect(r.json.status).toBe(false);
    expect((await get(sim, '/video/voices', undefined, { key: 'sk-free' })).status).toBe(200);
  });

  it('402 when the balance is not positive (actor video)', async () => {
    sim.accounts.add({ key: 'sk-empty', credits: 0 });
    const r = await post(sim, '/video/generate', actorBody, { key: 'sk-empty' });
    expect(r.status).toBe(402);
    expect(r.json).toMatchObject({ status: false });
  });

  it('402 when the balance is positive but below the price, and nothing is charged', async () => {
    const acct = sim.accounts.add({ key: 'sk-poor', credits: 50 });
    const r = await post(sim, '/video/generate', actorBody, { key: 'sk-poor' });
    expect(r.status).toBe(402);
    expect(r.json.message).toMatch(/insufficient credits/);
    expect(acct.credits).toBe(50);
  });

  it('charges the spec price (100 per talking-actor video)', async () => {
    const acct = sim.accounts.add({ key: 'sk-charge', credits: 1000 });
    expect((await post(sim, '/video/generate', actorBody, { key: 'sk-charge' })).status).toBe(200);
    expect(acct.credits).toBe(900);
  });
});

describe('jobs', () => {
  it('runs to completed with a fetchable MP4', async () => {
    const r = await post(sim, '/video/generate', actorBody);
    const done = await waitForJob(sim, '/video/status', r.json.data.id);
    expect(done.status).toBe('completed');
    expect(isMp4(await fetchBytes(done.url))).toBe(true);
  });

  it('is processing while its script says so, without a url', async () => {
    sim.jobs.scriptNext({ durationMs: 60_000 });
    const r = await post(sim, '/video/generate', actorBody);
    const s = await get(sim, '/video/status', { id: r.json.data.id });
    expect(s.json.data.status).toBe('processing');
    expect(s.json.data.url).toBeUndefined();
  });

  it('scriptNext failures carry a reason, for `count` jobs', async () => {
    sim.jobs.scriptNext({ outcome: { kind: 'fail', reason: 'face not detected' } }, 2);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await post(sim, '/video/generate', actorBody)).json.data.id);
    const states = [];
    for (const id of ids) states.push(await waitForJob(sim, '/video/status', id));
    expect(states[0]).toMatchObject({ status: 'failed', reason: 'face not detected' });
    expect(states[0].url).toBeUndefined();
    expect(states[1]).toMatchObject({ status: 'failed', reason: 'face not detected' });
    expect(states[2].status).toBe('completed');
  });

  it('404 for unknown ids and for another account’s jobs; 400 without id', async () => {
    expect((await get(sim, '/video/status', { id: 'nope' })).status).toBe(404);
    const mine = (await post(sim, '/video/generate', actorBody)).json.data.id;
    sim.accounts.add({ key: 'sk-other' });
    expect((await get(sim, '/video/status', { id: mine }, { key: 'sk-other' })).status).toBe(404);
    expect((await get(sim, '/video/status')).status).toBe(400);
  });

  it('registers finished videos as owned videos for upscale', async () => {
    const id = (await post(sim, '/video/generate', actorBody)).json.data.id;
    await waitForJob(sim, '/video/status', id);
    expect(sim.ownedVideos.get(id)).toMatchObject({ videoType: 'video', accountKey: sim.apiKey, fps: 30 });
  });

  it('seeds the four upscale source videos', () => {
    expect(sim.ownedVideos.get('vid_seed_ok')).toMatchObject({ width: 720, height: 1280, durationS: 30, fps: 30 });
    expect(sim.ownedVideos.get('vid_seed_long')?.durationS).toBe(400);
    expect(sim.ownedVideos.get('vid_seed_fps')?.fps).toBe(120);
    expect(sim.ownedVideos.get('vid_seed_4k')).toMatchObject({ width: 2160, height: 3840, videoType: 'video' });
  });
});

describe('media', () => {
  it('serves PNG, MP4 and MP3 without auth', async () => {
    expect(isPng(await fetchBytes(`${sim.origin}/media/x.png`))).toBe(true);
    expect(isMp4(await fetchBytes(`${sim.origin}/media/x.mp4`))).toBe(true);
    const mp3 = await fetchBytes(`${sim.origin}/media/x.mp3`);
    // An ID3v2 tag, then MPEG audio frames (src/sim/fixtures/sample.mp3, made by ffmpeg).
    expect([mp3[0], mp3[1], mp3[2]]).toEqual([0x49, 0x44, 0x33]);
    expect((await fetch(`${sim.origin}/media/x.exe`)).status).toBe(404);
  });
});

describe('request log', () => {
  it('records method, path, query, body and status, never the key', async () => {
    await post(sim, '/video/generate', actorBody, { headers: { 'x-request-id': 'log-test-1' } });
    await get(sim, '/video/voices', { language: 'German' }, { key: null });
    const [a, b] = sim.log.entries();
    expect(a).toMatchObject({
      method: 'POST',
      path: '/video/generate',
      body: actorBody,
      status: 200,
      requestId: 'log-test-1',
    });
    expect(a!.headers['x-api-key']).toBeUndefined();
    expect(a!.headers['x-api-key-present']).toBe('yes');
    expect(b).toMatchObject({ method: 'GET', path: '/video/voices', query: { language: 'German' }, status: 401 });
    expect(b!.headers['x-api-key-present']).toBe('no');
    expect(JSON.stringify(sim.log.entries())).not.toContain(sim.apiKey);
    expect(sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(1);
    expect(sim.log.count({ path: /^\/video\// })).toBe(2);
  });

  it('redacts a key sent in the query string or as a bearer token', async () => {
    await get(sim, '/video/avatars', { api_key: sim.apiKey }, { headers: { authorization: `Bearer ${sim.apiKey}` } });
    expect(JSON.stringify(sim.log.entries())).not.toContain(sim.apiKey);
  });
});

describe('flat routes', () => {
  it('401 on a flat (enterprise) route still carries status:false and message', async () => {
    const r = await get(sim, '/enterprise/models', undefined, { key: null });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ status: false, message: 'not authenticated' });
  });

  it('flat success bodies are not wrapped, but carry an extra field', async () => {
    const r = await get(sim, '/enterprise/models');
    expect(r.status).toBe(200);
    expect(Array.isArray(r.json.models)).toBe(true);
    expect(r.json.data).toBeUndefined();
    expect(r.json.trace).toBeDefined();
  });
});
