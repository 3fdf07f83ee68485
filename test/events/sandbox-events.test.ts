/**
 * Issue 29 item 7: the sandbox rehearses events too. `--sandbox --http` with GENPLAT_EVENTS_URL on loopback: a
 * talking video made from a request_upload'ed WAV (no bucket, no public URL) finishes with nobody reading, and the
 * bot's loopback receiver hears job.submitted then job.completed, each verified with the Standard Webhooks library.
 * Real parts: the sandbox simulator, the SQLite store, the SDK client, HTTP on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { wav } from '../files/media-bytes.js';
import { connectClient, sc, type TestClient, TOKEN_A } from '../http/helpers.js';
import { type Receiver, startReceiver } from './receiver.js';

const quiet = createLogger('error', () => {});

async function until(probe: () => boolean, what: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('--sandbox --http: events reach a loopback bot', () => {
  let dir: string;
  let rt: HttpRuntime;
  let receiver: Receiver;
  let a: TestClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genplat-sandbox-events-'));
    receiver = await startReceiver();
    const base = loadConfig(parseCli(['--sandbox', '--http', '--port', '0']), {
      GENPLAT_STATE_DIR: dir,
      GENPLAT_HTTP_TOKEN: TOKEN_A,
      GENPLAT_EVENTS_URL: receiver.url,
      GENPLAT_EVENTS_SECRET: receiver.secret,
    });
    const config: Config = { ...base, confirm: { mode: 'never' } };
    rt = await startHttpRuntime(config, quiet, { pollIntervalMs: 20 });
    a = await connectClient(rt.http.url, TOKEN_A);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await rt?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an uploaded WAV becomes a talking video; job.submitted and job.completed arrive signed, nobody reading', async () => {
    const link = sc(await a.call('request_upload', { kind: 'audio', filename: 'voice.wav' }));
    const put = await fetch(String(link.url), {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav', 'x-filename': 'voice.wav' },
      body: wav(40_000),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
    const r = await a.call('create_talking_video', {
      avatar_id: 'av_ava',
      voice_script: 'Made in the sandbox from an uploaded file.',
      voice_url: String(link.reference),
    });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const handle = sc(r).handle as string;
    // Nobody calls get_job or wait_for_jobs: the follower reads the job, the worker delivers.
    await until(
      () => receiver.received.some((e) => e.type === 'job.completed' && e.body.data.handle === handle),
      `job.completed for ${handle}`,
    );
    expect(receiver.received.filter((e) => e.body.data.handle === handle).map((e) => e.type)).toEqual([
      'job.submitted',
      'job.completed',
    ]);
    expect(receiver.badSignatures).toBe(0);
  }, 120_000);
});
