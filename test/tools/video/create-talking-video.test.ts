import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import waitForJobs from '../../../tools/jobs/wait-for-jobs.js';
import createTalkingVideo from '../../../tools/video/create-talking-video.js';
import { type Harness, startHarness, structured, text } from '../../helpers/harness.js';

const TOOL = 'create_talking_video';
const POSTS = { method: 'POST', path: '/video/generate' } as const;
const BASE = { avatar_id: 'av_ava', voice_script: 'Meet the bottle that keeps coffee hot for 12 hours.' };
const SETTINGS = { stability: 0.5, similarity_boost: 0.4, style: 0, use_speaker_boost: true, speed: 1 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    tools: [createTalkingVideo, waitForJobs],
    config: { webhookAllowlist: ['hooks.example.com'] },
  });
});
afterAll(() => h.close());
beforeEach(() => h.sim.log.clear());

describe('create_talking_video', () => {
  it('is listed as billable with a short description and the guard arguments', async () => {
    const { tools } = await h.client.listTools();
    const t = tools.find((x) => x.name === TOOL)!;
    expect(t.description!.length).toBeLessThan(300);
    expect(t.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['avatar_id', 'voice_script', 'voice_id', 'confirmation_token', 'allow_duplicate']),
    );
    expect(t.outputSchema).toBeDefined();
  });

  it('happy path: submitted, then completed with a video URL', async () => {
    const voice = h.sim.data.voices.find((v) => v.language === 'English')!;
    const r = await h.call(TOOL, {
      ...BASE,
      voice_id: voice.id,
      video_name: 'Thermos ad',
      voice_settings: SETTINGS,
      webhook_url: 'https://hooks.example.com/genplat',
    });
    const s = structured(r);
    expect(r.isError).toBeFalsy();
    expect(s).toMatchObject({ status: 'submitted', kind: 'actor_video', estimate: { credits: 100, api_units: 1 } });
    expect(s.handle).toMatch(/^actor_video:/);
    expect(typeof s.request_id).toBe('string');
    expect(String(s.next_step)).toContain('wait_for_jobs');
    expect(h.sim.log.count(POSTS)).toBe(1);
    const sent = h.sim.log.entries().find((e) => e.method === 'POST' && e.path === '/video/generate');
    expect(sent?.body).toMatchObject({ avatar_id: 'av_ava', voice_id: voice.id, voice_settings: SETTINGS });

    const rec = await h.jobs.get(s.handle!);
    expect(rec).toMatchObject({ outcome: 'submitted', tool: TOOL, requestId: s.request_id });

    const w = await h.call('wait_for_jobs', { handles: [s.handle], max_wait_s: 20 });
    const job = (structured(w).jobs as { status: string; outputs?: { url: string; media: string }[] }[])[0]!;
    expect(job.status).toBe('completed');
    expect(job.outputs?.[0]).toMatchObject({ media: 'video' });
    expect(job.outputs?.[0]?.url).toMatch(/^http/);
  });

  it('accepts voice_url (script still required)', async () => {
    const r = await h.call(TOOL, { ...BASE, voice_script: 'own audio', voice_url: 'https://cdn.example.com/a.mp3' });
    expect(structured(r).status).toBe('submitted');
    expect(h.sim.log.count(POSTS)).toBe(1);
  });

  const rejected: [string, Record<string, unknown>, RegExp][] = [
    ['missing avatar_id', { voice_script: 'x' }, /avatar_id/],
    [
      'missing voice_script (even with voice_url)',
      { avatar_id: 'av_ava', voice_url: 'https://cdn.example.com/a.mp3' },
      /voice_script/,
    ],
    ['empty voice_script', { ...BASE, voice_script: '' }, /voice_script/],
    ['voice_script over 1500 chars', { ...BASE, voice_script: 'a'.repeat(1501) }, /voice_script/],
    ['partial voice_settings', { ...BASE, voice_settings: { stability: 0.5 } }, /voice_settings/],
    [
      'stability above 1',
      { ...BASE, voice_settings: { ...SETTINGS, stability: 1.5 } },
      /voice_settings[\s\S]*stability|stability/,
    ],
    ['negative style', { ...BASE, voice_settings: { ...SETTINGS, style: -0.1 } }, /style/],
    ['speed out of range', { ...BASE, voice_settings: { ...SETTINGS, speed: 3 } }, /speed/],
    [
      'use_speaker_boost not boolean',
      { ...BASE, voice_settings: { ...SETTINGS, use_speaker_boost: 'yes' } },
      /use_speaker_boost/,
    ],
    ['private voice_url', { ...BASE, voice_url: 'http://10.0.0.7/voice.mp3' }, /voice_url/],
    ['loopback voice_url', { ...BASE, voice_url: 'http://127.0.0.1:9/voice.mp3' }, /voice_url/],
    ['voice_url with credentials', { ...BASE, voice_url: 'https://u:p@cdn.example.com/a.mp3' }, /voice_url/],
    ['voice_url data URI', { ...BASE, voice_url: 'data:audio/mpeg;base64,AAAA' }, /voice_url/],
    ['webhook not on the allow-list', { ...BASE, webhook_url: 'https://evil.example.net/hook' }, /webhook_url/],
    ['unknown argument', { ...BASE, voiceId: 'x' }, /voiceId|unrecognized/i],
  ];
  for (const [name, args, field] of rejected) {
    it(`rejects ${name} before any request`, async () => {
      const r = await h.call(TOOL, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(field);
      expect(h.sim.log.count(POSTS)).toBe(0);
    });
  }

  it('rejects a voiceId passed as voice_id, naming the right id', async () => {
    const voice = h.sim.data.voices[0]!;
    const r = await h.call(TOOL, { ...BASE, voice_id: voice.voiceId });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('voice_id');
    expect(text(r)).toContain(`"${voice.id}"`);
    expect(h.sim.log.count(POSTS)).toBe(0);
  });
});
