import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../../src/define-tool.js';
import createCustomAvatar from '../../../tools/avatar/create-custom-avatar.js';
import createTalkingVideo from '../../../tools/video/create-talking-video.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_custom_avatar';
const POSTS = { method: 'POST', path: '/custom-avatar/generate' } as const;
const TOOLS = [createCustomAvatar, createTalkingVideo] as unknown as ToolSpec[];
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let h: Harness;
let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-avatar-'));
  h = await startHarness({ tools: TOOLS, config: { files: { inputDirs: [dir], staging: undefined } } });
  await writeFile(file('face.png'), Buffer.concat([PNG, Buffer.alloc(2048, 1)]));
  await writeFile(file('voice.mp3'), Buffer.concat([Buffer.from('ID3'), Buffer.alloc(4096, 2)]));
  await writeFile(file('notes.png'), 'not an image at all');
  await writeFile(file('face.bmp'), Buffer.concat([Buffer.from('BM'), Buffer.alloc(64)]));
  await writeFile(file('huge.png'), PNG);
  // Sparse: the size check must refuse it from stat alone.
  await truncate(file('huge.png'), 10 * 1024 * 1024 + 1);
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => h.sim.log.clear());

describe('create_custom_avatar', () => {
  it('is listed as billable with a short description', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.description).toMatch(/custom-avatar access/);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['image', 'voice', 'confirmation_token']),
    );
  });

  it('from a URL: completed at once, and the avatar_id works in create_talking_video', async () => {
    const r = await h.call(TOOL, { image: 'https://cdn.example.com/portraits/ana.jpg' });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s).toMatchObject({ status: 'completed', kind: 'custom_avatar', estimate: { credits: 100, api_units: 1 } });
    const details = s.details as Record<string, string>;
    expect(details.avatar_id).toMatch(/^ca_/);
    expect(details.usage).toContain('create_talking_video');
    expect(details.selected_voice_id).toBeTruthy();
    expect(s.handle).toBe(`custom_avatar:${details.avatar_id}`);
    expect(s.outputs).toEqual([{ url: details.thumbnail_url, media: 'avatar' }]);
    expect(String(s.next_step)).not.toContain('wait_for_jobs');
    expect(h.sim.log.count(POSTS)).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.path === POSTS.path)!;
    expect(sent.body).toEqual({ image: 'https://cdn.example.com/portraits/ana.jpg' });
    expect(await h.jobs.get(s.handle!)).toMatchObject({ outcome: 'submitted', status: 'completed' });

    const video = await h.call('create_talking_video', { avatar_id: details.avatar_id, voice_script: 'Hello there.' });
    expect(video.isError).toBeFalsy();
    expect(structured(video).status).toBe('submitted');
  });

  it('from local files: uploads both as file parts with their detected types', async () => {
    const r = await h.call(TOOL, { image: file('face.png'), voice: file('voice.mp3') });
    expect(r.isError).toBeFalsy();
    expect(structured(r).status).toBe('completed');
    const sent = h.sim.log.entries().find((e) => e.path === POSTS.path)!;
    expect(sent.body).toMatchObject({
      image: { filename: 'face.png', contentType: 'image/png', size: 2056 },
      voice: { filename: 'voice.mp3', contentType: 'audio/mpeg', size: 4099 },
    });
    // A voice sample makes the platform clone a voice for the avatar.
    expect((structured(r).details as Record<string, string>).selected_voice_id).toMatch(/^voice_custom_/);
  });

  const rejected: [string, () => Record<string, unknown>, RegExp][] = [
    ['a file over 10 MiB', () => ({ image: file('huge.png') }), /image[\s\S]*10 MiB/],
    ['a file whose content is not an image', () => ({ image: file('notes.png') }), /image[\s\S]*content is not/],
    ['a file type outside the list', () => ({ image: file('face.bmp') }), /image[\s\S]*must end in/],
    [
      'an image passed as the voice',
      () => ({ image: file('face.png'), voice: file('face.png') }),
      /voice[\s\S]*must end in/,
    ],
    ['a missing file', () => ({ image: file('gone.png') }), /image[\s\S]*does not exist/],
    [
      'a relative path',
      () => ({ image: 'face.png' }),
      /image: .*absolute local file path|absolute local file path at image/,
    ],
    ['a private image URL', () => ({ image: 'http://192.168.1.10/face.png' }), /image/],
    ['a private voice URL', () => ({ image: file('face.png'), voice: 'http://localhost/v.mp3' }), /voice/],
    ['a data URI', () => ({ image: 'data:image/png;base64,iVBORw0KGgo=' }), /image/],
    ['a missing image', () => ({ voice: file('voice.mp3') }), /image/],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args());
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }

  it('reports a 403 when the account lacks custom-avatar access', async () => {
    const account = h.sim.accounts.get(h.sim.apiKey)!;
    account.features.customAvatar = false;
    try {
      const r = await h.call(TOOL, { image: 'https://cdn.example.com/p/b.png' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/403|plan/);
    } finally {
      account.features.customAvatar = true;
    }
  });
});

describe('create_custom_avatar with consent and over HTTP', () => {
  it('token flow: a quote first (no request), then the avatar with the token', async () => {
    const c = await startHarness({
      sim: h.sim,
      tools: TOOLS,
      config: { confirm: { mode: 'always' }, files: { inputDirs: [dir], staging: undefined } },
    });
    try {
      h.sim.log.clear();
      const args = { image: file('face.png') };
      const first = structured(await c.call(TOOL, args));
      expect(first).toMatchObject({ status: 'confirmation_required', estimate: { credits: 100 } });
      expect(h.sim.log.count(POSTS)).toBe(0);
      const second = await c.call(TOOL, { ...args, confirmation_token: first.confirmation_token });
      expect(structured(second).status).toBe('completed');
      expect(h.sim.log.count(POSTS)).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('refuses local paths when the caller is remote (HTTP mode)', async () => {
    const c = await startHarness({ sim: h.sim, tools: TOOLS, owner: 'alice' });
    try {
      h.sim.log.clear();
      const r = await c.call(TOOL, { image: file('face.png') });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/image[\s\S]*stdio/);
      expect(h.sim.log.count(POSTS)).toBe(0);
    } finally {
      await c.close();
    }
  });
});
