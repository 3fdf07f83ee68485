import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RequestSpec } from '../../../src/client/http.js';
import { JobIdSchema, VideoStatusSchema } from '../../../src/client/schemas.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InsufficientCreditsError,
  MalformedResponseError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  SubmissionUnknownError,
  TimeoutError,
} from '../../../src/errors.js';
import { at, everythingAbout, json, KEY, mockPlatform, ok } from './mock-platform.js';

type Fixture = ReturnType<typeof mockPlatform>;
let fx: Fixture;
afterEach(async () => {
  await fx?.agent.close();
});

const getStatus = (extra: Partial<Omit<RequestSpec<unknown>, 'schema'>> = {}) =>
  fx.http.request({
    method: 'GET',
    path: '/video/status',
    query: { id: 'v1' },
    schema: VideoStatusSchema,
    envelope: true,
    submit: false,
    ...extra,
  });
const submit = (extra: Partial<Omit<RequestSpec<unknown>, 'schema'>> = {}) =>
  fx.http.request({
    method: 'POST',
    path: '/video/generate',
    json: { avatar_id: 'a1', voice_script: 'hi' },
    schema: JobIdSchema,
    envelope: true,
    submit: true,
    ...extra,
  });
const catchErr = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
};
const sentRequestId = (i = 0) => {
  const h = fx.calls()[i]?.headers as Record<string, string>;
  return h['x-request-id'];
};

const reset = () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const processing = ok({ status: 'processing' });

describe('request basics', () => {
  it('sends the key only in X-Api-Key, a fresh X-Request-Id, and returns the response request id', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, processing, { headers: { ...json, 'x-request-id': 'srv-1' } });
    const res = await getStatus();
    expect(res).toEqual({ data: { status: 'processing' }, requestId: 'srv-1' });
    const call = fx.calls()[0]!;
    const headers = call.headers as Record<string, string>;
    expect(headers['x-api-key']).toBe(KEY);
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(call.fullUrl).toBe('http://platform.test/api/video/status?id=v1');
    expect(call.fullUrl).not.toContain(KEY);
    expect(headers.authorization).toBeUndefined();
  });

  it('falls back to the request id it sent when the response has none', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    const res = await getStatus();
    expect(res.requestId).toBe(sentRequestId());
  });

  it('sends JSON with content-type application/json', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: '/api/video/generate', method: 'POST' }).reply(200, ok({ id: 'v1' }), { headers: json });
    await submit();
    const call = fx.calls()[0]!;
    expect((call.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(JSON.parse(call.body as string)).toEqual({ avatar_id: 'a1', voice_script: 'hi' });
  });

  it('logs one debug line per request, with no query values and no key', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, processing, { headers: { ...json, 'x-request-id': 'srv-9' } });
    await getStatus({ query: { id: 'secret-ish-id' } });
    expect(fx.lines).toHaveLength(1);
    const line = fx.lines[0]!;
    expect(line).toContain('"method":"GET"');
    expect(line).toContain('"path":"/video/status"');
    expect(line).toContain('"status":200');
    expect(line).toContain('"requestId":"srv-9"');
    expect(line).toMatch(/"ms":\d+/);
    expect(line).not.toContain('secret-ish-id');
    expect(line).not.toContain(KEY);
  });

  it('does not follow a redirect (fetch would carry X-Api-Key to the named host)', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(302, '', { headers: { location: 'http://elsewhere.test/steal' } });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(ApiError);
    expect(fx.calls()).toHaveLength(1);
  });
});

describe('GET retries', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i once and then succeeds', async (status) => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(status, { status: false, message: 'try later' }, { headers: json });
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    const res = await getStatus();
    expect(res.data.status).toBe('processing');
    expect(fx.calls()).toHaveLength(2);
    // Each attempt carries its own request id.
    expect(sentRequestId(0)).not.toBe(sentRequestId(1));
  });

  it.each([
    ['reset', reset],
    ['refused', refused],
  ])('retries a connection error (%s)', async (_name, error) => {
    fx = mockPlatform();
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).replyWithError(error());
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    await getStatus();
    expect(fx.calls()).toHaveLength(2);
  });

  it('retries a timeout', async () => {
    fx = mockPlatform({ timeoutMs: 30 });
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, processing)
      .delay(1_000);
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    await getStatus();
    expect(fx.calls()).toHaveLength(2);
  });

  it('retries an unparseable 2xx body but not a wrong shape', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, '{"status": tru', { headers: json });
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    await getStatus();
    expect(fx.calls()).toHaveLength(2);

    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, ok({ url: 'x' }), { headers: json });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(fx.calls()).toHaveLength(3);
  });

  it.each([400, 401, 402, 403, 404])('does not retry %i', async (status) => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(status, { status: false, message: 'no' }, { headers: json });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(ApiError);
    expect(fx.calls()).toHaveLength(1);
  });

  it('gives up after maxRetries, with jittered exponential backoff', async () => {
    fx = mockPlatform({ maxRetries: 3, random: () => 0.5 });
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(503, { status: false, message: 'model unavailable' }, { headers: json })
      .persist();
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(fx.calls()).toHaveLength(4);
    expect(fx.sleeps).toEqual([250, 500, 1_000]);
  });

  it('honours Retry-After in seconds', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(429, { status: false, message: 'slow down' }, { headers: { ...json, 'retry-after': '2' } });
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    await getStatus();
    expect(fx.sleeps).toEqual([2_000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    fx = mockPlatform();
    const when = new Date(Date.now() + 10_000).toUTCString();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(429, { status: false, message: 'slow down' }, { headers: { ...json, 'retry-after': when } });
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, processing, { headers: json });
    await getStatus();
    expect(fx.sleeps).toHaveLength(1);
    expect(fx.sleeps[0]).toBeGreaterThan(5_000);
    expect(fx.sleeps[0]).toBeLessThanOrEqual(10_000);
  });

  it('reports a 429 with a long Retry-After at once, with the wait for the agent', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(429, { status: false, message: 'slow down' }, { headers: { ...json, 'retry-after': '120' } });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(120_000);
    expect((err as RateLimitError).nextStep).toContain('120 s');
    expect(fx.calls()).toHaveLength(1);
  });
});

describe('POSTs are never retried', () => {
  const failures: Array<[string, (f: Fixture, path: string) => void]> = [
    ['408', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).reply(408, { status: false }, { headers: json })],
    ['429', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).reply(429, { status: false }, { headers: json })],
    ['500', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).reply(500, { status: false }, { headers: json })],
    ['503', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).reply(503, { status: false }, { headers: json })],
    ['reset', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).replyWithError(reset())],
    ['refused', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).replyWithError(refused())],
    [
      'timeout',
      (f, p) =>
        f.pool
          .intercept({ path: p, method: 'POST' })
          .reply(200, ok({ id: 'x' }))
          .delay(1_000),
    ],
    ['malformed', (f, p) => f.pool.intercept({ path: p, method: 'POST' }).reply(200, '<html>', { headers: json })],
  ];
  for (const submitFlag of [true, false]) {
    it.each(failures)(`%s → exactly one request (submit: ${submitFlag})`, async (_name, arrange) => {
      fx = mockPlatform({ timeoutMs: 30 });
      arrange(fx, '/api/video/generate');
      // A second interceptor that would succeed: it must stay unused.
      fx.pool
        .intercept({ path: '/api/video/generate', method: 'POST' })
        .reply(200, ok({ id: 'v2' }), { headers: json });
      await catchErr(submit({ submit: submitFlag }));
      expect(fx.calls()).toHaveLength(1);
      expect(fx.sleeps).toEqual([]);
    });
  }
});

describe('submit POSTs: submission unknown vs definitive', () => {
  it.each([500, 502, 503, 504, 408])('%i → SubmissionUnknownError with the response request id', async (status) => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(status, { status: false, message: 'boom' }, { headers: { ...json, 'x-request-id': 'srv-5xx' } });
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as SubmissionUnknownError).requestId).toBe('srv-5xx');
    expect((err as SubmissionUnknownError).nextStep).toContain('srv-5xx');
    expect((err as Error).cause).toBeInstanceOf(ServerError);
  });

  it('timeout → SubmissionUnknownError with the request id we sent', async () => {
    fx = mockPlatform({ timeoutMs: 30 });
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(200, ok({ id: 'x' }))
      .delay(1_000);
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as Error).cause).toBeInstanceOf(TimeoutError);
    expect((err as SubmissionUnknownError).requestId).toBe(sentRequestId());
  });

  it('reset after sending → SubmissionUnknownError', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: '/api/video/generate', method: 'POST' }).replyWithError(reset());
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as Error).cause).toBeInstanceOf(ConnectionError);
    expect((err as SubmissionUnknownError).requestId).toBe(sentRequestId());
  });

  it('malformed 2xx → SubmissionUnknownError', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(200, 'not json', { headers: { 'x-request-id': 'srv-m' } });
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as SubmissionUnknownError).requestId).toBe('srv-m');
  });

  it('2xx of the wrong shape → SubmissionUnknownError (the job may exist; we cannot read its id)', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: '/api/video/generate', method: 'POST' }).reply(200, ok({}), { headers: json });
    expect(await catchErr(submit())).toBeInstanceOf(SubmissionUnknownError);
  });

  it.each([200, 400, 500])('submission_unknown: true with %i → SubmissionUnknownError', async (status) => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(
        status,
        { status: false, message: 'unsure', submission_unknown: true },
        { headers: { ...json, 'x-request-id': 'srv-su' } },
      );
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as SubmissionUnknownError).requestId).toBe('srv-su');
  });

  it('connection refused → ConnectionError(sent=false), not unknown', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: '/api/video/generate', method: 'POST' }).replyWithError(refused());
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).sent).toBe(false);
    expect((err as ConnectionError).requestId).toBe(sentRequestId());
  });

  it.each([
    [400, 'avatar_id is required', BadRequestError],
    [401, 'not authenticated', AuthenticationError],
    [402, 'payment required', InsufficientCreditsError],
    [403, 'subscription required', PermissionDeniedError],
    [404, 'avatar not found', NotFoundError],
    [429, 'slow down', RateLimitError],
  ])('%i is definitive: thrown as-is', async (status, message, cls) => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(status, { status: false, message }, { headers: { ...json, 'x-request-id': `srv-${status}` } });
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(cls);
    expect((err as ApiError).requestId).toBe(`srv-${status}`);
  });

  it('a non-submit POST (the upscale quote) reports a 5xx as-is', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/upscale/quote', method: 'POST' })
      .reply(500, { status: false, message: 'probe failed' }, { headers: json });
    const err = await catchErr(submit({ path: '/upscale/quote', submit: false }));
    expect(err).toBeInstanceOf(ServerError);
  });
});

describe('status → error class and message', () => {
  it.each([
    [400, { status: false, message: 'voice_script too long' }, BadRequestError, 'voice_script too long'],
    [400, { status: false, message: 'Insufficient credits' }, InsufficientCreditsError, 'Not enough credits'],
    [402, { status: false, message: 'no balance' }, InsufficientCreditsError, 'Not enough credits'],
    [402, {}, InsufficientCreditsError, 'Not enough credits'],
    [401, { status: false, message: 'not authenticated' }, AuthenticationError, '401'],
    [403, { status: false, message: 'plan' }, PermissionDeniedError, '403'],
    [404, { status: false, message: 'avatar not found' }, NotFoundError, 'avatar not found'],
    [422, { status: false, message: 'bad' }, BadRequestError, 'invalid'],
    [500, { status: false, message: 'oops' }, ServerError, '500'],
    [503, { status: false, message: 'model down' }, ServiceUnavailableError, 'temporarily unavailable'],
    [502, '<html>bad gateway</html>', ServerError, '502'],
  ])('%i %j → %o', async (status, body, cls, text) => {
    fx = mockPlatform({ maxRetries: 0 });
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(status, body, { headers: { 'x-request-id': 'srv-e' } });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(cls);
    expect(err.message).toContain(text);
    expect((err as ApiError).status).toBe(status);
    expect((err as ApiError).requestId).toBe('srv-e');
    expect(err.message).not.toContain('<html>');
  });

  it('envelope status:false on a 200 is treated like a 400 with its message', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, { status: false, message: 'id is required' }, { headers: json });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toContain('id is required');
    expect(fx.calls()).toHaveLength(1);
  });

  it('envelope status:false with a credits message on a 200 → InsufficientCreditsError', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(200, { status: false, message: 'insufficient credits' }, { headers: json });
    expect(await catchErr(submit())).toBeInstanceOf(InsufficientCreditsError);
  });
});

describe('response schemas', () => {
  it('tolerates extra fields at every level and keeps them', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(
      200,
      { status: true, message: null, extra: 1, data: { status: 'completed', url: 'https://x/v.mp4', new: [1] } },
      {
        headers: json,
      },
    );
    const res = await getStatus();
    expect(res.data).toMatchObject({ status: 'completed', url: 'https://x/v.mp4', new: [1] });
  });

  it('rejects a missing required field with a short path-based detail, never the body', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, ok({ url: 'https://private.example/very-personal-value' }), {
        headers: { ...json, 'x-request-id': 'srv-s' },
      });
    const err = await catchErr(getStatus());
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toContain('data.status');
    expect(err.message).not.toContain('very-personal-value');
    expect((err as MalformedResponseError).requestId).toBe('srv-s');
  });

  it('rejects a body without an envelope on an envelope endpoint', async () => {
    fx = mockPlatform();
    fx.pool.intercept({ path: at('/video/status'), method: 'GET' }).reply(200, [1, 2], { headers: json });
    expect(await catchErr(getStatus())).toBeInstanceOf(MalformedResponseError);
  });

  it('validates a flat body directly when envelope is false', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/enterprise/models'), method: 'GET' })
      .reply(200, { models: [{ model: 'm', media: 'image', credits: 5, x: 1 }] }, { headers: json });
    const res = await fx.http.request({
      method: 'GET',
      path: '/enterprise/models',
      schema: z.looseObject({ models: z.array(z.looseObject({ model: z.string() })) }),
      envelope: false,
      submit: false,
    });
    expect(res.data.models[0]?.model).toBe('m');
  });
});

describe('cancellation', () => {
  it('a caller abort during a GET rethrows an AbortError, not a TimeoutError', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(200, processing)
      .delay(1_000);
    const ac = new AbortController();
    const p = getStatus({ signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    const err = await catchErr(p);
    expect(err.name).toBe('AbortError');
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(fx.calls()).toHaveLength(1);
  });

  it('a caller abort during backoff stops retrying', async () => {
    const ac = new AbortController();
    fx = mockPlatform({
      sleep: async () => {
        ac.abort();
        throw new DOMException('aborted', 'AbortError');
      },
    });
    fx.pool
      .intercept({ path: at('/video/status'), method: 'GET' })
      .reply(503, {}, { headers: json })
      .persist();
    const err = await catchErr(getStatus({ signal: ac.signal }));
    expect(err.name).toBe('AbortError');
    expect(fx.calls()).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    fx = mockPlatform();
    const err = await catchErr(submit({ signal: AbortSignal.abort() }));
    expect(err.name).toBe('AbortError');
    expect(fx.calls()).toHaveLength(0);
  });

  it('a caller abort of a submit POST on the wire is a SubmissionUnknownError (the job may exist)', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(200, ok({ id: 'x' }))
      .delay(1_000);
    const ac = new AbortController();
    const p = submit({ signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    const err = await catchErr(p);
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect((err as SubmissionUnknownError).requestId).toBe(sentRequestId());
  });
});

describe('the API key never leaks', () => {
  const arrangements: Array<[string, (f: Fixture) => void]> = [
    [
      '401',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .reply(401, { status: false, message: 'not authenticated' }, { headers: json }),
    ],
    [
      'echoed key',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .reply(400, { status: false, message: `bad key ${KEY}`, echo: { k: KEY } }, { headers: json }),
    ],
    [
      '500',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .reply(500, { status: false }, { headers: json })
          .persist(),
    ],
    [
      'reset',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .replyWithError(reset())
          .persist(),
    ],
    [
      'refused',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .replyWithError(refused())
          .persist(),
    ],
    [
      'timeout',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .reply(200, processing)
          .delay(500)
          .persist(),
    ],
    [
      'malformed',
      (f) =>
        f.pool
          .intercept({ path: at('/video/status'), method: 'GET' })
          .reply(200, ok({}))
          .persist(),
    ],
  ];
  it.each(arrangements)('%s: not in the error, its JSON, or any log line', async (_name, arrange) => {
    fx = mockPlatform({ timeoutMs: 20, maxRetries: 1 });
    arrange(fx);
    const err = await catchErr(getStatus());
    expect(everythingAbout(err)).not.toContain(KEY);
    for (const line of fx.lines) expect(line).not.toContain(KEY);
  });

  it('not in a submit failure either', async () => {
    fx = mockPlatform();
    fx.pool
      .intercept({ path: '/api/video/generate', method: 'POST' })
      .reply(500, { status: false, message: `key ${KEY} broke it` }, { headers: json });
    const err = await catchErr(submit());
    expect(err).toBeInstanceOf(SubmissionUnknownError);
    expect(everythingAbout(err)).not.toContain(KEY);
  });
});
