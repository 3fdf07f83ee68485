import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, get, PUBLIC_IMAGE, post, type Simulator, startSimulator, waitForJob } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
function form(parts: Record<string, string | { bytes: Uint8Array; type: string; name?: string }>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') fd.append(k, v);
    else fd.append(k, new Blob([v.bytes], { type: v.type }), v.name ?? `${k}.bin`);
  }
  return fd;
}
const create = (fd: FormData, key?: string) => call(sim, 'POST', '/custom-avatar/generate', { form: fd, key });

describe('POST /custom-avatar/generate', () => {
  it('creates an avatar from a file, charges 100, and the avatar is usable at once', async () => {
    const before = sim.accounts.get(sim.apiKey)!.credits;
    const r = await create(form({ image: { bytes: PNG, type: 'image/png', name: 'me.png' } }));
    expect(r.status).toBe(200);
    expect(r.json.status).toBe(true);
    const d = r.json.data;
    expect(d).toMatchObject({ status: true });
    for (const f of ['avatar_id', 'thumbnail_url', 'audio_url', 'selected_voice_id'])
      expect(typeof d[f]).toBe('string');
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(before - 100);

    const avatars = (await get(sim, '/video/avatars')).json.data;
    expect(avatars.some((a: any) => a.id === d.avatar_id)).toBe(true);
    const video = await post(sim, '/video/generate', { avatar_id: d.avatar_id, voice_script: 'My own avatar.' });
    expect(video.status).toBe(200);
    expect((await waitForJob(sim, '/video/status', video.json.data.id)).status).toBe('completed');
  });

  it('accepts an image URL and a voice file; the voice becomes a custom voice', async () => {
    const r = await create(form({ image: PUBLIC_IMAGE, voice: { bytes: new Uint8Array(64), type: 'audio/mpeg' } }));
    expect(r.status).toBe(200);
    const voices = (await get(sim, '/video/voices')).json.data;
    const v = voices.find((x: any) => x.id === r.json.data.selected_voice_id);
    expect(v?.isCustom).toBe(true);
  });

  it('logs multipart fields with file metadata and digest, not bytes', async () => {
    sim.log.clear();
    await create(form({ image: { bytes: PNG, type: 'image/png', name: 'me.png' } }));
    expect(sim.log.entries()[0]?.body).toEqual({
      image: {
        filename: 'me.png',
        size: PNG.length,
        contentType: 'image/png',
        sha256: createHash('sha256').update(PNG).digest('hex'),
      },
    });
  });

  it('400 for a missing image', async () => {
    const r = await create(form({ voice: 'https://cdn.example.com/v.mp3' }));
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^image: is required/);
  });

  it('400 for a file over 10 MiB; exactly 10 MiB is fine', async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    const r = await create(form({ image: { bytes: big, type: 'image/png' } }));
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^image: file too large/);
    const ok = await create(form({ image: { bytes: big.subarray(1), type: 'image/png' } }));
    expect(ok.status).toBe(200);
    const v = await create(form({ image: PUBLIC_IMAGE, voice: { bytes: big, type: 'audio/wav' } }));
    expect(v.json.message).toMatch(/^voice: file too large/);
  });

  it('400 for the wrong file types', async () => {
    const a = await create(form({ image: { bytes: PNG, type: 'application/pdf' } }));
    expect(a.status).toBe(400);
    expect(a.json.message).toMatch(/^image: invalid file type/);
    const b = await create(form({ image: PUBLIC_IMAGE, voice: { bytes: PNG, type: 'image/png' } }));
    expect(b.status).toBe(400);
    expect(b.json.message).toMatch(/^voice: invalid file type/);
  });

  it('400 for a private image URL and for a JSON body', async () => {
    expect((await create(form({ image: 'http://10.1.2.3/me.png' }))).json.message).toMatch(/^image: /);
    const j = await post(sim, '/custom-avatar/generate', { image: PUBLIC_IMAGE });
    expect(j.status).toBe(400);
    expect(j.json.message).toMatch(/multipart/);
  });

  it('400 (not 402) for insufficient credits on this path', async () => {
    const acct = sim.accounts.add({ key: 'sk-ca-poor', credits: 99 });
    const r = await create(form({ image: PUBLIC_IMAGE }), 'sk-ca-poor');
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/insufficient credits/);
    expect(acct.credits).toBe(99);
    sim.accounts.add({ key: 'sk-ca-zero', credits: 0 });
    expect((await create(form({ image: PUBLIC_IMAGE }), 'sk-ca-zero')).status).toBe(400);
  });

  it('403 without custom-avatar access', async () => {
    sim.accounts.add({ key: 'sk-ca-nofeature', features: { customAvatar: false, dedicatedFamily: true } });
    expect((await create(form({ image: PUBLIC_IMAGE }), 'sk-ca-nofeature')).status).toBe(403);
  });

  it('custom avatars are private to their account', async () => {
    const r = await create(form({ image: PUBLIC_IMAGE }));
    sim.accounts.add({ key: 'sk-ca-other' });
    const other = await post(
      sim,
      '/video/generate',
      { avatar_id: r.json.data.avatar_id, voice_script: 'x' },
      { key: 'sk-ca-other' },
    );
    expect(other.status).toBe(404);
  });
});
