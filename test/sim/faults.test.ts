import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { get, post, type Simulator, startSimulator, waitFor } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.log.clear();
});

const actorBody = { avatar_id: 'av_ava', voice_script: 'Fault test.' };
const actorJobs = () => sim.jobs.all().filter((j) => j.kind === 'actor').length;

/** Raw POST that reports a connection reset instead of throwing an opaque fetch error. */
function rawPost(path: string, body: unknown): Promise<{ status?: number; text?: string; error?: string }> {
  return new Promise((resolve) => {
    const url = new URL(sim.baseUrl + path);
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': sim.apiKey } },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode, text }));
        res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
      },
    );
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(JSON.stringify(body));
  });
}

describe('faults', () => {
  it('server_error: 500 without running the handler', async () => {
    sim.faults.add({ path: '/video/generate', kind: 'server_error' });
    const before = actorJobs();
    const r = await post(sim, '/video/generate', actorBody);
    expect(r.status).toBe(500);
    expect(r.json.status).toBe(false);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(actorJobs()).toBe(before);
  });

  it('server_error_after_accept: job created and charged, 500 with submission_unknown', async () => {
    sim.faults.add({ method: 'POST', path: '/video/generate', kind: 'server_error_after_accept' });
    const credits = sim.accounts.get(sim.apiKey)!.credits;
    const before = actorJobs();
    const r = await post(sim, '/video/generate', actorBody);
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ status: false, submission_unknown: true });
    expect(actorJobs()).toBe(before + 1);
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(credits - 100);
  });

  it('affects `times` matching requests only, and respects the method', async () => {
    sim.faults.add({ method: 'GET', path: /^\/video\//, kind: 'server_error', times: 2 });
    expect((await post(sim, '/video/generate', actorBody)).status).toBe(200);
    expect((await get(sim, '/video/avatars')).status).toBe(500);
    expect((await get(sim, '/video/voices')).status).toBe(500);
    expect((await get(sim, '/video/avatars')).status).toBe(200);
  });

  it('rate_limit: 429 with Retry-After', async () => {
    sim.faults.add({ path: '/video/avatars', kind: 'rate_limit', retryAfterS: 7 });
    const r = await get(sim, '/video/avatars');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    sim.faults.add({ path: '/video/avatars', kind: 'rate_limit' });
    expect((await get(sim, '/video/avatars')).headers.get('retry-after')).toBe('1');
  });

  it('unavailable: 503', async () => {
    sim.faults.add({ path: '/video/voices', kind: 'unavailable' });
    expect((await get(sim, '/video/voices')).status).toBe(503);
  });

  it('reset: the connection is destroyed without an answer and no job is created', async () => {
    sim.faults.add({ path: '/video/generate', kind: 'reset' });
    const before = actorJobs();
    const r = await rawPost('/video/generate', actorBody);
    expect(r.error).toBeDefined();
    expect(r.status).toBeUndefined();
    expect(actorJobs()).toBe(before);
    expect(sim.log.entries()[0]?.status).toBe(0);
  });

  it('reset_after_accept: the job exists but the client sees a reset', async () => {
    sim.faults.add({ path: '/video/generate', kind: 'reset_after_accept' });
    const before = actorJobs();
    const r = await rawPost('/video/generate', actorBody);
    expect(r.error).toBeDefined();
    expect(actorJobs()).toBe(before + 1);
  });

  it('malformed_json: 200 with a truncated body after the job was accepted', async () => {
    sim.faults.add({ path: '/video/generate', kind: 'malformed_json' });
    const before = actorJobs();
    const r = await post(sim, '/video/generate', actorBody);
    expect(r.status).toBe(200);
    expect(() => JSON.parse(r.text)).toThrow();
    expect(actorJobs()).toBe(before + 1);
  });

  it('delay: the job is accepted at once and the answer is held past the client timeout', async () => {
    sim.faults.add({ path: '/video/generate', kind: 'delay', delayMs: 5000 });
    const before = actorJobs();
    const res = await fetch(`${sim.baseUrl}/video/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sim.apiKey },
      body: JSON.stringify(actorBody),
      signal: AbortSignal.timeout(300),
    }).catch((e: Error) => e);
    expect(res).toBeInstanceOf(Error);
    await waitFor(async () => (actorJobs() === before + 1 ? true : undefined), 'the accepted job');
  });

  it('delay shorter than the client timeout still answers normally', async () => {
    sim.faults.add({ path: '/video/avatars', kind: 'delay', delayMs: 20 });
    const r = await get(sim, '/video/avatars');
    expect(r.status).toBe(200);
    expect(r.json.status).toBe(true);
  });

  it('clear() disarms faults', async () => {
    sim.faults.add({ path: '/video/avatars', kind: 'server_error', times: 5 });
    sim.faults.clear();
    expect((await get(sim, '/video/avatars')).status).toBe(200);
  });

  it('faults on flat routes answer in the flat error shape', async () => {
    sim.faults.add({ path: '/enterprise/models', kind: 'server_error' });
    const r = await get(sim, '/enterprise/models');
    expect(r.status).toBe(500);
    expect(r.json.error).toBeTruthy();
    expect(r.json.status).toBeUndefined();
  });

  it('the log keeps faulted requests', async () => {
    sim.faults.add({ path: '/video/voices', kind: 'unavailable' });
    await get(sim, '/video/voices');
    await waitFor(async () => (sim.log.count({ path: '/video/voices' }) === 1 ? true : undefined), 'log entry');
    expect(sim.log.entries()[0]?.status).toBe(503);
  });
});
