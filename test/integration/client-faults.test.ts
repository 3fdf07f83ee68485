/**
 * Failure behaviour through the real client against the simulator: auth and plan errors, credits, and every
 * fault knob on a job-starting POST (exactly one request, SubmissionUnknownError with the request id when it
 * may have been accepted) and on a GET (retried, then succeeds).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  InsufficientCreditsError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  SubmissionUnknownError,
  TimeoutError,
} from '../../src/errors.js';
import type { FaultSpec } from '../../src/sim/index.js';
import { CANARY_KEY, everythingAbout, type Rig, rejection, startRig } from './client-helpers.js';

/** Small enough to keep the suite quick, far above a loopback round trip. */
const CLIENT_TIMEOUT_MS = 300;
/** A held ('delay') answer is logged by the simulator only when released, so the counts wait for it. */
const HELD_MS = 800;
const logged = { timeout: 3_000, interval: 20 };

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ timeoutMs: CLIENT_TIMEOUT_MS });
});
afterEach(() => {
  rig.sim.faults.clear();
  rig.sim.log.clear();
});
afterAll(async () => {
  await rig?.close();
});

const GENERATE = '/video/generate';
const STATUS = '/video/status';
const submitBody = { avatar_id: 'av_ava', voice_script: 'Hello' };
const posts = () => rig.sim.log.count({ method: 'POST', path: GENERATE });
const gets = () => rig.sim.log.count({ method: 'GET', path: STATUS });

async function aJob(): Promise<string> {
  const { data } = await rig.client.actors.generate(submitBody);
  rig.sim.log.clear();
  return data.id;
}

describe('auth, plan and credits', () => {
  it('401 for an unknown key, not retried, key absent from the error', async () => {
    const c = rig.clientWith({ apiKey: 'sk-test-WRONG-0000000000' });
    const err = await rejection(c.voices.list());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).requestId).toBeTruthy();
    expect(rig.sim.log.count()).toBe(1);
    expect(everythingAbout(err)).not.toContain('sk-test-WRONG-0000000000');
  });

  it('403 for a free plan on a generation POST', async () => {
    rig.sim.accounts.add({ key: 'sk-test-FREE-000000000001', subscription: 'free' });
    const c = rig.clientWith({ apiKey: 'sk-test-FREE-000000000001' });
    const err = await rejection(c.actors.generate(submitBody));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err.message).toContain('403');
    expect(posts()).toBe(1);
  });

  it('403 for custom avatars without the feature', async () => {
    rig.sim.accounts.add({
      key: 'sk-test-NOCA-000000000002',
      features: { customAvatar: false, dedicatedFamily: true },
    });
    const c = rig.clientWith({ apiKey: 'sk-test-NOCA-000000000002' });
    const err = await rejection(c.avatars.createCustom({ image: { url: 'https://cdn.example.com/me.png' } }));
    expect(err).toBeInstanceOf(PermissionDeniedError);
  });

  it('insufficient credits: 402 on one path, 400-with-message on another, both InsufficientCreditsError', async () => {
    rig.sim.accounts.add({ key: 'sk-test-POOR-000000000003', credits: 50 });
    const c = rig.clientWith({ apiKey: 'sk-test-POOR-000000000003' });
    const on402 = await rejection(c.actors.generate(submitBody));
    expect(on402).toBeInstanceOf(InsufficientCreditsError);
    expect((on402 as InsufficientCreditsError).status).toBe(402);
    const on400 = await rejection(c.avatars.createCustom({ image: { url: 'https://cdn.example.com/me.png' } }));
    expect(on400).toBeInstanceOf(InsufficientCreditsError);
    expect((on400 as InsufficientCreditsError).status).toBe(400);
    expect(on400.message).toContain('no job was created');
  });
});

describe('fault knobs on a job-starting POST: exactly one request', () => {
  const unknownKinds: Array<[FaultSpec['kind'], Partial<FaultSpec>]> = [
    ['server_error_after_accept', {}],
    ['server_error', {}],
    ['unavailable', {}],
    ['delay', { delayMs: HELD_MS }],
    ['reset', {}],
    ['reset_after_accept', {}],
    ['malformed_json', {}],
  ];
  it.each(unknownKinds)('%s → SubmissionUnknownError quoting the request id', async (kind, extra) => {
    rig.sim.faults.add({ method: 'POST', path: GENERATE, kind, ...extra });
    const err = await rejection(rig.client.actors.generate(submitBody));
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    await vi.waitFor(() => expect(posts()).toBe(1), logged);
    const entry = rig.sim.log.entries().find((e) => e.path === GENERATE);
    const requestId = (err as SubmissionUnknownError).requestId;
    expect(requestId).toBe(entry?.requestId);
    expect((err as SubmissionUnknownError).nextStep).toContain(requestId);
    expect(everythingAbout(err)).not.toContain(CANARY_KEY);
  });

  it('delay past the client timeout: the cause is a TimeoutError, and the job really exists', async () => {
    const before = rig.sim.jobs.all().length;
    rig.sim.faults.add({ method: 'POST', path: GENERATE, kind: 'delay', delayMs: HELD_MS });
    const err = await rejection(rig.client.actors.generate(submitBody));
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect(err.cause).toBeInstanceOf(TimeoutError);
    expect(rig.sim.jobs.all().length).toBe(before + 1);
    // Let the held answer land in this test's log, not the next one's.
    await vi.waitFor(() => expect(posts()).toBe(1), logged);
  });

  it('rate_limit is a definitive answer: RateLimitError, not retried', async () => {
    rig.sim.faults.add({ method: 'POST', path: GENERATE, kind: 'rate_limit', retryAfterS: 0 });
    const err = await rejection(rig.client.actors.generate(submitBody));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(posts()).toBe(1);
  });

  it('the non-submit upscale quote is not retried either', async () => {
    rig.sim.faults.add({ method: 'POST', path: '/upscale/quote', kind: 'server_error' });
    const err = await rejection(
      rig.client.upscale.quote({
        video_id: 'vid_seed_ok',
        project_id: 'proj_seed_ok',
        video_type: 'video',
        model_family: 'precision',
        model: 'precise-1',
        target_resolution: '1080p',
      }),
    );
    expect(err).toBeInstanceOf(ServerError);
    expect(rig.sim.log.count({ method: 'POST', path: '/upscale/quote' })).toBe(1);
  });
});

describe('fault knobs on a GET: retried, then succeeds', () => {
  const kinds: Array<[FaultSpec['kind'], Partial<FaultSpec>]> = [
    ['server_error_after_accept', {}],
    ['server_error', {}],
    ['unavailable', {}],
    ['delay', { delayMs: HELD_MS }],
    ['reset', {}],
    ['reset_after_accept', {}],
    ['malformed_json', {}],
    ['rate_limit', { retryAfterS: 0 }],
  ];
  it.each(kinds)('%s once → two requests, a normal answer', async (kind, extra) => {
    const id = await aJob();
    rig.sim.faults.add({ method: 'GET', path: STATUS, kind, times: 1, ...extra });
    const res = await rig.client.actors.status(id);
    expect(['processing', 'completed']).toContain(res.data.status);
    await vi.waitFor(() => expect(gets()).toBe(2), logged);
  });

  it('a persistent fault gives up after maxRetries (4 requests in all)', async () => {
    const id = await aJob();
    rig.sim.faults.add({ method: 'GET', path: STATUS, kind: 'server_error', times: 10 });
    const err = await rejection(rig.client.actors.status(id));
    expect(err).toBeInstanceOf(ServerError);
    expect(gets()).toBe(4);
    expect((err as ServerError).requestId).toBe(rig.sim.log.entries().at(-1)?.requestId);
  });
});

describe('no key anywhere after all of the above', () => {
  it('the simulator log headers and the client log lines never carry the key', async () => {
    rig.sim.faults.add({ method: 'GET', path: STATUS, kind: 'reset', times: 1 });
    await rejection(rig.client.actors.status('missing-id'));
    for (const e of rig.sim.log.entries()) {
      expect(e.headers['x-api-key-present']).toBe('yes');
      expect(JSON.stringify(e)).not.toContain(CANARY_KEY);
    }
    expect(rig.lines.length).toBeGreaterThan(0);
    for (const line of rig.lines) expect(line).not.toContain(CANARY_KEY);
  });
});
