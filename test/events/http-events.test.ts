/**
 * Events from the serving process (issue 29): with GENPLAT_EVENTS_URL set, a job that finishes with nobody reading
 * is announced (the follower reads it; the worker delivers job.submitted then job.completed, signed). kill -9 right
 * after a receiver acknowledged an event, before the server recorded it: the restarted server delivers it again
 * under the same webhook-id (at least once), and the rest after it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { startHttpRuntime } from '../../src/transports/http-main.js';
import { ENTRY, ensureBuilt } from '../helpers/build.js';
import { billableExample } from '../helpers/examples.js';
import { connectClient, type HttpFixture, sc, startHttpFixture, TOKEN_A } from '../http/helpers.js';
import { type Receiver, startReceiver } from './receiver.js';

let fx: HttpFixture | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
  await receiver?.close();
  receiver = undefined;
});

async function until(probe: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('events from the HTTP server', () => {
  it('a job that finishes with nobody reading: job.submitted then job.completed arrive, signed', async () => {
    receiver = await startReceiver();
    fx = await startHttpFixture({
      confirm: { mode: 'never' },
      env: { GENPLAT_EVENTS_URL: receiver.url, GENPLAT_EVENTS_SECRET: receiver.secret },
    });
    const c = await fx.connect(TOKEN_A);
    const r = await c.call('create_talking_video', billableExample('create_talking_video').args(fx.sim, 1));
    const handle = sc(r).handle as string;
    expect(handle).toBeTruthy();
    // Nobody calls get_job: the follower reads the job, the store writes job.completed, the worker delivers it.
    const rcv = receiver;
    await until(
      () => rcv.received.some((e) => e.type === 'job.completed' && e.body.data.handle === handle),
      'completed',
    );
    const mine = rcv.received.filter((e) => e.body.data.handle === handle).map((e) => e.type);
    expect(mine).toEqual(['job.submitted', 'job.completed']);
    expect(rcv.badSignatures).toBe(0);
    const done = rcv.received.find((e) => e.type === 'job.completed')!.body.data;
    expect(done.outputs).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'video' })]));
  });

  it('refuses to start with a malformed secret, naming the field and never quoting it', () => {
    const bad = 'whsec_tooshort';
    expect(() =>
      loadConfig(parseCli(['--http']), {
        GENPLAT_API_KEY: 'k',
        GENPLAT_EVENTS_URL: 'http://127.0.0.1:9/e',
        GENPLAT_EVENTS_SECRET: bad,
      }),
    ).toThrow(/GENPLAT_EVENTS_SECRET must be a Standard Webhooks secret/);
    expect(() =>
      loadConfig(parseCli(['--http']), {
        GENPLAT_API_KEY: 'k',
        GENPLAT_EVENTS_URL: 'http://bot.example.com/e',
        GENPLAT_EVENTS_SECRET: receiverSecret(),
      }),
    ).toThrow(/GENPLAT_EVENTS_URL must be an https URL/);
  });
});

function receiverSecret(): string {
  return `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
}

describe('kill -9 mid-delivery', () => {
  let sim: Simulator | undefined;
  const base = mkdtempSync(join(tmpdir(), 'genplat-events-kill-'));
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const ch of children) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGKILL');
    await sim?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('an event acknowledged but not recorded is delivered again after restart, same webhook-id; nothing lost', async () => {
    ensureBuilt();
    sim = await startSimulator({ timing: 'test' });
    receiver = await startReceiver();
    const env = {
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_STATE_DIR: join(base, 'state'),
      GENPLAT_HTTP_TOKEN: TOKEN_A,
      GENPLAT_EVENTS_URL: receiver.url,
      GENPLAT_EVENTS_SECRET: receiver.secret,
    };
    const child = spawn(process.execPath, [ENTRY, '--http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', ...env, GENPLAT_TEST_KILL_AT: 'event_posted' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /ready on (http:\S+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`server exited (${code}) before ready: ${stderr}`)));
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, sig) => resolve(sig)));
    const c = await connectClient(url, TOKEN_A);
    const r = await c.call('create_talking_video', billableExample('create_talking_video').args(sim, 2));
    const handle = sc(r).handle as string;
    await c.close().catch(() => {});
    expect(await exited).toBe('SIGKILL');
    const rcv = receiver;
    expect(rcv.received).toHaveLength(1);
    const acknowledged = rcv.received[0]!.id;

    // Restarted (in process, its clock past the dead holder's 30 s lease).
    setTrustedMediaOrigins([sim.origin]);
    const config = loadConfig(parseCli(['--http', '--port', '0']), env);
    const rt = await startHttpRuntime(
      { ...config, vendors: sim.vendors },
      createLogger('error', () => {}),
      {
        pollIntervalMs: 20,
        now: () => Date.now() + 60_000,
      },
    );
    try {
      await until(
        () => rcv.received.some((e) => e.type === 'job.completed' && e.body.data.handle === handle),
        'job.completed after restart',
      );
      const ids = rcv.received.map((e) => e.id);
      expect(ids.filter((id) => id === acknowledged)).toHaveLength(2);
      expect(rcv.received.filter((e) => e.body.data.handle === handle).map((e) => e.type)).toEqual([
        'job.submitted',
        'job.submitted',
        'job.completed',
      ]);
    } finally {
      await rt.close();
    }
  }, 240_000);
});
