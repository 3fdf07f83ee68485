import { describe, expect, it, vi } from 'vitest';
import type { JobRef } from '../../../src/jobs/handle.js';
import { normaliseState, readJob, upscaleView, viewFromRecord } from '../../../src/jobs/status.js';
import type { JobRecord } from '../../../src/jobs/store.js';
import { fakeClient, ok } from './fake-client.js';

const VIDEO_KINDS = [
  ['actor_video', 'actors', 'status', 'video'],
  ['product_video', 'products', 'status', 'video'],
  ['shoppable_image', 'ads', 'imageStatus', 'image'],
  ['shoppable_video', 'ads', 'videoStatus', 'video'],
  ['family_video', 'family', 'status', 'video'],
] as const;

describe('readJob: video-job envelope kinds', () => {
  for (const [kind, area, fn, media] of VIDEO_KINDS) {
    it(`${kind}: processing, completed with url, completed without url, failed with reason`, async () => {
      const status = vi
        .fn()
        .mockResolvedValueOnce(ok({ status: 'processing' }))
        .mockResolvedValueOnce(ok({ status: 'completed', url: 'https://cdn.example/out' }, 'req-9'))
        .mockResolvedValueOnce(ok({ status: 'completed', url: '' }))
        .mockResolvedValueOnce(ok({ status: 'failed', reason: 'face not found' }))
        .mockResolvedValueOnce(ok({ status: 'failed' }));
      const client = fakeClient({ [area]: { [fn]: status } });
      const ref = { kind, id: 'j1' } as JobRef;
      expect(await readJob(client, ref)).toEqual({
        status: 'processing',
        outputs: [],
        remote: { id: 'j1' },
        requestId: 'req-1',
      });
      expect(await readJob(client, ref)).toEqual({
        status: 'completed',
        outputs: [{ url: 'https://cdn.example/out', media }],
        remote: { id: 'j1' },
        requestId: 'req-9',
      });
      const noUrl = await readJob(client, ref);
      expect(noUrl.status).toBe('processing');
      expect(noUrl.note).toMatch(/no output URL/);
      expect(await readJob(client, ref)).toMatchObject({ status: 'failed', reason: 'face not found' });
      expect((await readJob(client, ref)).reason).toMatch(/without a reason/);
      expect(status).toHaveBeenCalledWith('j1', {});
    });
  }

  it('an unknown state string stays processing with a note', async () => {
    const client = fakeClient({ actors: { status: async () => ok({ status: 'rendering' }) } });
    const v = await readJob(client, { kind: 'actor_video', id: 'x' });
    expect(v.status).toBe('processing');
    expect(v.note).toMatch(/unrecognised state "rendering"/);
  });
});

describe('readJob: content library and gestures', () => {
  it('template_video uses db_id and url', async () => {
    const client = fakeClient({
      library: { status: async () => ok({ db_id: 'db-7', status: 'completed', url: 'https://cdn.example/t.mp4' }) },
    });
    expect(await readJob(client, { kind: 'template_video', id: 'db-7' })).toMatchObject({
      status: 'completed',
      outputs: [{ url: 'https://cdn.example/t.mp4', media: 'video' }],
      remote: { id: 'db-7' },
    });
  });

  it('gesture reads video_url and project_id; completed without video_url keeps processing', async () => {
    const status = vi
      .fn()
      .mockResolvedValueOnce(ok({ id: 'g1', project_id: 'p1', status: 'completed' }))
      .mockResolvedValueOnce(
        ok({ id: 'g1', project_id: 'p1', status: 'completed', video_url: 'https://cdn.example/g.mp4' }),
      );
    const client = fakeClient({ gestures: { status } });
    expect((await readJob(client, { kind: 'gesture', id: 'g1' })).status).toBe('processing');
    expect(await readJob(client, { kind: 'gesture', id: 'g1' })).toMatchObject({
      status: 'completed',
      outputs: [{ url: 'https://cdn.example/g.mp4', media: 'video' }],
      remote: { id: 'g1', project_id: 'p1' },
    });
  });
});

describe('readJob: enterprise (flat; integer or string states)', () => {
  const cases: [unknown, string][] = [
    [0, 'processing'],
    ['0', 'processing'],
    ['queued', 'processing'],
    ['processing', 'processing'],
    [2, 'failed'],
    ['failed', 'failed'],
    ['FAILED', 'failed'],
  ];
  for (const [raw, expected] of cases) {
    it(`status ${JSON.stringify(raw)} → ${expected}`, async () => {
      const client = fakeClient({ enterprise: { status: async () => ok({ request_id: 'r1', status: raw }) } });
      expect((await readJob(client, { kind: 'model', id: 'r1', media: 'video' })).status).toBe(expected);
    });
  }

  it('1 with images: every output_link URL is a result', async () => {
    const client = fakeClient({
      enterprise: {
        status: async () =>
          ok({
            request_id: 'r1',
            media: 'image',
            status: 1,
            project_id: 'p',
            output: { output_link: ['https://a/1.png', 'https://a/2.png'] },
          }),
      },
    });
    expect(await readJob(client, { kind: 'model', id: 'r1', media: 'image' })).toMatchObject({
      status: 'completed',
      outputs: [
        { url: 'https://a/1.png', media: 'image' },
        { url: 'https://a/2.png', media: 'image' },
      ],
      remote: { id: 'r1', project_id: 'p' },
    });
  });

  it('"completed" string with video_url', async () => {
    const client = fakeClient({
      enterprise: { status: async () => ok({ request_id: 'r1', status: 'completed', video_url: 'https://a/v.mp4' }) },
    });
    expect((await readJob(client, { kind: 'model', id: 'r1', media: 'video' })).outputs).toEqual([
      { url: 'https://a/v.mp4', media: 'video' },
    ]);
  });

  it('status 1 but no output yet keeps processing', async () => {
    const client = fakeClient({
      enterprise: { status: async () => ok({ request_id: 'r1', status: 1, output: { output_link: [] } }) },
    });
    const v = await readJob(client, { kind: 'model', id: 'r1', media: 'image' });
    expect(v.status).toBe('processing');
    expect(v.note).toMatch(/no output URL/);
  });

  it('media comes from the handle; any → no media query (the platform checks video, then image)', async () => {
    const status = vi.fn(async () => ok({ status: 0 }));
    const client = fakeClient({ enterprise: { status } });
    await readJob(client, { kind: 'model', id: 'r1', media: 'image' });
    await readJob(client, { kind: 'model', id: 'r2', media: 'any' });
    expect(status.mock.calls.map((c) => (c as unknown[]).slice(0, 2))).toEqual([
      ['r1', 'image'],
      ['r2', undefined],
    ]);
  });

  it('failed with an error object gives its message as the reason', async () => {
    const client = fakeClient({
      enterprise: { status: async () => ok({ status: 2, error: { message: 'nsfw filter' } }) },
    });
    expect((await readJob(client, { kind: 'model', id: 'r1', media: 'video' })).reason).toBe('nsfw filter');
  });
});

describe('upscale', () => {
  const attempt = { id: 'v1', billing_id: 'b1', project_id: 'p1' };
  it('preparing and charged are processing', () => {
    expect(upscaleView({ ...attempt, status: 'preparing' }).status).toBe('processing');
    expect(upscaleView({ ...attempt, status: 'charged', credits_charged: 300 })).toMatchObject({
      status: 'processing',
      creditsCharged: 300,
    });
  });
  it('completed gives the video_url', () => {
    expect(
      upscaleView({ ...attempt, status: 'completed', video_url: 'https://a/up.mp4', credits_charged: 300 }),
    ).toEqual({
      status: 'completed',
      outputs: [{ url: 'https://a/up.mp4', media: 'video' }],
      creditsCharged: 300,
      remote: { id: 'v1', billing_id: 'b1', project_id: 'p1' },
    });
  });
  it('refunded is a failure naming the refund', () => {
    expect(upscaleView({ ...attempt, status: 'refunded', credits_charged: 300, credits_refunded: 300 })).toMatchObject({
      status: 'failed',
      reason: 'refunded: 300 credits returned',
      creditsRefunded: 300,
    });
  });
  it('failed carries the error', () => {
    expect(upscaleView({ ...attempt, status: 'failed', error: 'probe failed' })).toMatchObject({
      status: 'failed',
      reason: 'probe failed',
    });
  });
  it('unknown states stay processing with a note', () => {
    expect(upscaleView({ ...attempt, status: 'queued_gpu' })).toMatchObject({
      status: 'processing',
      note: expect.stringMatching(/queued_gpu/),
    });
  });
  it('readJob sends all four ids', async () => {
    const status = vi.fn(async () => ok({ ...attempt, status: 'preparing' }));
    const client = fakeClient({ upscale: { status } });
    await readJob(client, { kind: 'upscale', id: 'v1', projectId: 'p1', videoType: 'video', billingId: 'b1' });
    expect(status).toHaveBeenCalledWith(
      { video_id: 'v1', project_id: 'p1', video_type: 'video', billing_id: 'b1' },
      {},
    );
  });
});

describe('ledger-only kinds', () => {
  it('readJob refuses custom_avatar and submission handles', async () => {
    await expect(readJob(fakeClient(), { kind: 'submission', id: 'x' })).rejects.toThrow(/no status endpoint/);
    await expect(readJob(fakeClient(), { kind: 'custom_avatar', id: 'x' })).rejects.toThrow(/no status endpoint/);
  });

  const rec = (p: Partial<JobRecord>): JobRecord => ({
    id: 'l1',
    handle: 'submission:l1',
    tool: 'create_talking_video',
    kind: 'actor_video',
    fingerprint: 'f',
    summary: 's',
    estimate: undefined,
    consent: 'policy',
    outcome: 'submitted',
    status: 'processing',
    requestId: undefined,
    remote: undefined,
    outputs: [],
    reason: undefined,
    creditsCharged: undefined,
    creditsRefunded: undefined,
    originalUrl: undefined,
    owner: undefined,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...p,
  });

  it('unknown outcome explains itself and names the request id', () => {
    const v = viewFromRecord(rec({ outcome: 'unknown', status: 'unknown', requestId: 'rq-5' }));
    expect(v.status).toBe('unknown');
    expect(v.reason).toMatch(/may or may not have been accepted.*rq-5/);
  });
  it('rejected is failed; completed custom avatar keeps its outputs', () => {
    expect(viewFromRecord(rec({ outcome: 'rejected', status: 'failed', reason: 'bad avatar' })).reason).toBe(
      'bad avatar',
    );
    const out = [{ url: 'https://a/t.png', media: 'avatar' as const }];
    expect(viewFromRecord(rec({ status: 'completed', outputs: out }))).toMatchObject({
      status: 'completed',
      outputs: out,
    });
  });
});

describe('normaliseState', () => {
  it('is case-insensitive and maps 0/1/2', () => {
    expect(normaliseState(1).state).toBe('completed');
    expect(normaliseState(' Completed ').state).toBe('completed');
    expect(normaliseState(undefined)).toMatchObject({ state: 'processing', note: expect.any(String) });
  });
});
