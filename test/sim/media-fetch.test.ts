/**
 * Issue 22 item 5: with `fetchMedia`, the simulator fetches a billable POST's loopback media URLs as the platform
 * fetches media: a URL it cannot fetch is rejected naming the field (spec: an inaccessible voice_url "is
 * rejected"), nothing is charged; one it can is recorded byte for byte. Without the option nothing changes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { sha256, wav } from '../files/media-bytes.js';

let sim: Simulator;
let plain: Simulator;
let media: Server;
let mediaOrigin: string;
const bytes = wav(20_000);

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  plain = await startSimulator({ timing: 'test' });
  media = createServer((req, res) => {
    if (req.url?.split('?')[0] === '/voice.wav') res.end(bytes);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', () => r()));
  mediaOrigin = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim.close();
  await plain.close();
  await new Promise((r) => media.close(r));
});

const generate = (s: Simulator, voiceUrl: string) =>
  fetch(`${s.baseUrl}/video/generate`, {
    method: 'POST',
    headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ avatar_id: 'av_ava', voice_script: 'hello', voice_url: voiceUrl }),
  });

describe('the simulator fetches media URLs (fetchMedia)', () => {
  it('a fetchable URL: accepted, the bytes recorded', async () => {
    const r = await generate(sim, `${mediaOrigin}/voice.wav?X-Amz-Signature=abc`);
    expect(r.status, await r.clone().text()).toBe(200);
    const got = sim.fetched.entries().at(-1);
    expect(got).toEqual({
      field: 'voice_url',
      path: '/voice.wav',
      size: bytes.length,
      sha256: sha256(bytes),
      type: 'audio/wav',
    });
  });

  it('an unfetchable URL: 400 naming the field, nothing charged', async () => {
    const credits = sim.accounts.get(sim.apiKey)!.credits;
    const r = await generate(sim, `${mediaOrigin}/missing.wav`);
    expect(r.status).toBe(400);
    expect(JSON.stringify(await r.json())).toMatch(/voice_url: media URL is not accessible \(HTTP 404\)/);
    expect(sim.accounts.get(sim.apiKey)!.credits).toBe(credits);
  });

  it('without the option a loopback URL is not public, as before', async () => {
    const r = await generate(plain, `${mediaOrigin}/voice.wav`);
    expect(r.status).toBe(400);
    expect(plain.fetched.entries()).toEqual([]);
  });
});
