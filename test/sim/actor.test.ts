import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, PUBLIC_AUDIO, post, type Simulator, startSimulator, waitForJob } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const base = { avatar_id: 'av_ava', voice_script: 'Hi, I am Ava.' };
const fullSettings = { stability: 0.5, similarity_boost: 0.4, style: 0, use_speaker_boost: true, speed: 1 };

async function expectReject(body: Record<string, unknown>, status: number, message: RegExp) {
  const credits = sim.accounts.get(sim.apiKey)!.credits;
  const r = await post(sim, '/video/generate', body);
  expect(r.status).toBe(status);
  expect(r.json.status).toBe(false);
  expect(r.json.message).toMatch(message);
  expect(sim.accounts.get(sim.apiKey)!.credits).toBe(credits);
}

describe('avatars and voices', () => {
  it('lists avatars with the spec fields, some empty', async () => {
    const r = await get(sim, '/video/avatars');
    expect(r.json.data.length).toBeGreaterThanOrEqual(6);
    for (const a of r.json.data) {
      for (const f of ['id', 'name', 'thumbnail', 'gender', 'skin', 'age_range', 'type']) expect(a).toHaveProperty(f);
    }
    expect(r.json.data.some((a: any) => a.skin === '' || a.age_range === '' || a.type === '')).toBe(true);
  });

  it('filters avatars by gender, case-insensitively', async () => {
    const r = await get(sim, '/video/avatars', { gender: 'female' });
    expect(r.json.data.length).toBeGreaterThan(0);
    expect(r.json.data.every((a: any) => a.gender === 'Female')).toBe(true);
  });

  it('lists voices in four languages plus a custom one; voiceId differs from id', async () => {
    const r = await get(sim, '/video/voices');
    const langs = new Set(r.json.data.map((v: any) => v.language));
    for (const l of ['English', 'Spanish', 'German', 'French']) expect(langs.has(l)).toBe(true);
    expect(r.json.data.some((v: any) => v.isCustom === true)).toBe(true);
    for (const v of r.json.data) expect(v.voiceId).not.toBe(v.id);
  });

  it('filters voices by language and gender, case-insensitively', async () => {
    const r = await get(sim, '/video/voices', { language: 'spanish', gender: 'MALE' });
    expect(r.json.data.map((v: any) => v.id)).toEqual(['voice_es_mateo']);
  });
});

describe('POST /video/generate', () => {
  it('happy path with voice_id, voice_settings and a webhook', async () => {
    const r = await post(sim, '/video/generate', {
      ...base,
      voice_id: 'voice_en_james',
      voice_settings: fullSettings,
      video_name: 'Demo',
      webhook_url: 'https://hooks.example.com/genplat',
    });
    expect(r.status).toBe(200);
    expect(typeof r.json.data.id).toBe('string');
    const done = await waitForJob(sim, '/video/status', r.json.data.id);
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.url).toMatch(/\.mp4$/);
  });

  it('accepts voice_url and the custom voice', async () => {
    expect((await post(sim, '/video/generate', { ...base, voice_url: PUBLIC_AUDIO })).status).toBe(200);
    expect((await post(sim, '/video/generate', { ...base, voice_id: 'voice_custom_sandbox' })).status).toBe(200);
    expect((await post(sim, '/video/generate', { ...base, voice_url: `${sim.origin}/media/a.mp3` })).status).toBe(200);
  });

  it('400 when avatar_id or voice_script is missing (voice_script even with voice_url)', async () => {
    await expectReject({ voice_script: 'x' }, 400, /^avatar_id: /);
    await expectReject({ avatar_id: 'av_ava', voice_url: PUBLIC_AUDIO }, 400, /^voice_script: /);
  });

  it('400 for a script over 1500 characters; 1500 is fine', async () => {
    await expectReject({ ...base, voice_script: 'a'.repeat(1501) }, 400, /^voice_script: .*1500/);
    expect((await post(sim, '/video/generate', { ...base, voice_script: 'a'.repeat(1500) })).status).toBe(200);
  });

  it('404 for an unknown avatar or voice, and for a voiceId passed as voice_id', async () => {
    await expectReject({ ...base, avatar_id: 'av_nobody' }, 404, /avatar not found/);
    await expectReject({ ...base, voice_id: 'voice_xx' }, 404, /voice not found/);
    const voices = (await get(sim, '/video/voices')).json.data;
    await expectReject({ ...base, voice_id: voices[0].voiceId }, 404, /voice not found/);
  });

  it('400 for private, credentialed, data and non-http voice_url', async () => {
    for (const u of [
      'http://127.0.0.1/a.mp3',
      'http://10.0.0.5/a.mp3',
      'http://169.254.169.254/latest',
      'http://100.64.1.1/a.mp3',
      'http://[::ffff:192.168.0.1]/a.mp3',
      'http://localhost/a.mp3',
      'https://user:pw@cdn.example.com/a.mp3',
      'data:audio/mpeg;base64,AAAA',
      'ftp://cdn.example.com/a.mp3',
    ]) {
      await expectReject({ ...base, voice_url: u }, 400, /^voice_url: must be a public/);
    }
  });

  it('400 for an inaccessible voice_url', async () => {
    await expectReject({ ...base, voice_url: 'https://audio.invalid/a.mp3' }, 400, /^voice_url: is not accessible/);
    await expectReject({ ...base, voice_url: 'https://cdn.example.com/unreachable.mp3' }, 400, /not accessible/);
  });

  it('400 for audio over 120 s (duration query convention); 120 s is fine', async () => {
    await expectReject({ ...base, voice_url: `${PUBLIC_AUDIO}?duration=121` }, 400, /^voice_url: .*120 seconds/);
    expect((await post(sim, '/video/generate', { ...base, voice_url: `${PUBLIC_AUDIO}?duration=120` })).status).toBe(
      200,
    );
  });

  it('voice_settings: the full object is required', async () => {
    const { speed: _s, ...partial } = fullSettings;
    await expectReject({ ...base, voice_settings: partial }, 400, /^voice_settings\.speed: is required/);
    await expectReject({ ...base, voice_settings: { stability: 0.5 } }, 400, /^voice_settings\.\w+: is required/);
    await expectReject({ ...base, voice_settings: 'fast' }, 400, /^voice_settings: must be an object/);
  });

  it.each([
    ['stability', 1.1],
    ['similarity_boost', -0.1],
    ['style', 2],
    ['stability', '0.5'],
    ['use_speaker_boost', 'yes'],
    ['speed', 0],
    ['speed', 2.5],
    ['speed', 0.4],
  ])('voice_settings.%s = %j is rejected', async (field, value) => {
    await expectReject(
      { ...base, voice_settings: { ...fullSettings, [field]: value } },
      400,
      new RegExp(`^voice_settings\\.${field}: `),
    );
  });

  it('400 for a private webhook_url', async () => {
    await expectReject({ ...base, webhook_url: 'http://192.168.1.10/hook' }, 400, /^webhook_url: /);
  });
});
