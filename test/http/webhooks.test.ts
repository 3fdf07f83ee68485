/**
 * Webhooks end waits early (issue 11 item 5), through the real `startHttpRuntime` with webhooks on
 * (`loopbackWebhooks`: the test-only stand-in for GENPLAT_PUBLIC_URL) against a simulator that may call
 * loopback URLs, and real SDK clients over Streamable HTTP.
 *
 * The poll interval is set to 10 minutes, so within a test only a callback can make the poller read a job a
 * second time: a wait that ends with `completed` was woken by the hint, and the status-read counters of the
 * simulator's log say how many reads it cost. The same wait with webhooks off is the control.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { SPEC_MIN_READ_GAP_MS } from '../../src/jobs/poller.js';
import { createLogger } from '../../src/log.js';
import { fingerprint } from '../../src/paid/fingerprint.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { LogEntry } from '../../src/sim/request-log.js';
import { openConfiguredStore } from '../../src/store/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { inProcessHints, type JobHints } from '../../src/webhooks/hints.js';
import { HOOK_BAD_PER_ADDR_PER_MIN, HOOK_PER_JOB_PER_MIN } from '../../src/webhooks/receiver.js';
import { billableExample } from '../helpers/examples.js';
import { rawRequest, sc, TOKEN_A } from './helpers.js';

/** Ten minutes: no second read is ever due within a test, so only a hint can cause one. */
const NEVER_DUE_MS = 600_000;

interface Instance {
  rt: HttpRuntime;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Origin of this instance's listener (where its callback URLs point). */
  origin: string;
}

interface Fixture {
  sim: Simulator;
  config: Config;
  start(o?: { webhooks?: boolean; hints?: JobHints }): Promise<Instance>;
  close(): Promise<void>;
}

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function fixture(o: { confirm?: Config['confirm']; allowlist?: string[] } = {}): Promise<Fixture> {
  const sim = await startSimulator({ timing: 'test', allowLoopbackWebhooks: true });
  setTrustedMediaOrigins([sim.origin]);
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-hooks-'));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: TOKEN_A,
  });
  const config: Config = {
    ...base,
    vendors: sim.vendors,
    confirm: o.confirm ?? { mode: 'never' },
    webhookAllowlist: o.allowlist ?? [],
    logLevel: 'error',
  };
  const log = createLogger('error', () => {});
  const closers: (() => Promise<unknown>)[] = [];
  return {
    sim,
    config,
    async start(s = {}) {
      const rt = await startHttpRuntime(config, log, {
        pollIntervalMs: NEVER_DUE_MS,
        loopbackWebhooks: s.webhooks ?? true,
        ...(s.hints ? { hints: s.hints } : {}),
      });
      const transport = new StreamableHTTPClientTransport(new URL(rt.http.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN_A}` } },
      });
      const client = new Client({ name: 'hooks-test', version: '0.0.0' }, { capabilities: {} });
      await client.connect(transport);
      await client.listTools();
      closers.push(async () => {
        await client.close().catch(() => {});
        await rt.close();
      });
      return {
        rt,
        origin: `http://127.0.0.1:${rt.http.port}`,
        call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      };
    },
    async close() {
      for (const c of closers.reverse()) await c();
      await sim.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

const posts = (sim: Simulator, path: string): LogEntry[] =>
  sim.log.entries().filter((e) => e.method === 'POST' && e.path === path);
const statusReads = (sim: Simulator, id: string) =>
  sim.log.entries().filter((e) => e.method === 'GET' && e.path === '/video/status' && e.query.id === id).length;
const bodyOf = (e: LogEntry | undefined) => (e?.body ?? {}) as Record<string, unknown>;

/** Creates a talking video whose job runs `durationMs`; returns its handle, platform id and our callback URL. */
async function talkingVideo(f: Fixture, on: Instance, durationMs: number, n = 0) {
  f.sim.jobs.scriptNext({ durationMs });
  const r = sc(await on.call('create_talking_video', billableExample('create_talking_video').args(f.sim, n)));
  expect(r.status).toBe('submitted');
  const sent = bodyOf(posts(f.sim, '/video/generate').at(-1));
  const id = String((r.handle ?? '').split(':')[1]);
  return { handle: String(r.handle), id, hook: sent.webhook_url as string | undefined };
}

describe('a callback ends a wait early (HTTP mode, webhooks on)', () => {
  it('the wait ends with the job completed right after the sim calls back, at the cost of one status read', async () => {
    fx = await fixture();
    const a = await fx.start();
    // Long enough that the first read sees `processing`; the sim calls back when it finishes.
    const job = await talkingVideo(fx, a, 2000);
    expect(job.hook).toMatch(new RegExp(`^${a.origin}/hooks/[0-9a-f-]{36}\\.[\\w-]{32}$`));
    expect(sc(await a.call('get_job', { handle: job.handle })).status).toBe('processing');

    const r = sc(await a.call('wait_for_jobs', { handles: [job.handle], max_wait_s: 30 }));
    const jobs = r.jobs as { status: string; outputs: unknown[] }[];
    expect(jobs[0]?.status).toBe('completed');
    expect(jobs[0]?.outputs.length).toBe(1);
    // The first read (processing) and the one the callback triggered: the 10-minute interval made no other.
    expect(statusReads(fx.sim, job.id)).toBe(2);
  });

  it('control: with webhooks off the same wait is still processing when its time is up (nothing wakes it)', async () => {
    fx = await fixture();
    const a = await fx.start({ webhooks: false });
    // The job outlasts the wait by far, so the control does not depend on how fast a loaded machine reaches the
    // wait's first read (a 200 ms job was seen completed by that read under 6 workers).
    const job = await talkingVideo(fx, a, 60_000);
    expect(job.hook).toBeUndefined();
    const r = sc(await a.call('wait_for_jobs', { handles: [job.handle], max_wait_s: 2 }));
    expect((r.jobs as { status: string }[])[0]?.status).toBe('processing');
    expect(statusReads(fx.sim, job.id)).toBe(1);
  });

  it('a callback received by one instance wakes a wait on another (the hints hook; in-process here)', async () => {
    fx = await fixture();
    // Stands in for the fleet's shared pub/sub: both instances on one store and one hint channel.
    const hints = inProcessHints();
    const a = await fx.start({ hints });
    const b = await fx.start({ hints });
    const job = await talkingVideo(fx, a, 2000);
    expect(job.hook?.startsWith(`${a.origin}/hooks/`)).toBe(true);
    // B has read the job once (processing) and would not read it again for 10 minutes.
    expect(sc(await b.call('get_job', { handle: job.handle })).status).toBe('processing');
    const r = sc(await b.call('wait_for_jobs', { handles: [job.handle], max_wait_s: 30 }));
    expect((r.jobs as { status: string }[])[0]?.status).toBe('completed');
  });
});

describe('a callback is only a hint', () => {
  it('a forged body (completed, fake outputs, a charge) changes nothing but one status read', async () => {
    fx = await fixture();
    const a = await fx.start();
    const job = await talkingVideo(fx, a, NEVER_DUE_MS);
    const before = statusReads(fx.sim, job.id);
    const forged = JSON.stringify({
      status: 'completed',
      url: 'https://evil.example.com/fake.mp4',
      video_url: 'https://evil.example.com/fake.mp4',
      credits_charged: 0,
      data: { status: 'completed', url: 'https://evil.example.com/fake.mp4' },
    });
    const res = await rawRequest(job.hook!, { body: forged, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(202);
    expect(res.body).toBe('');
    await vi.waitFor(() => expect(statusReads(fx!.sim, job.id)).toBe(before + 1));

    const got = sc(await a.call('get_job', { handle: job.handle }));
    expect(got.status).toBe('processing');
    expect(got.outputs).toEqual([]);
    expect(JSON.stringify(got)).not.toContain('evil.example.com');
    const store = await openConfiguredStore(fx.config, { warn: () => {} });
    try {
      const rec = await store.get(job.handle);
      expect(rec?.status).toBe('processing');
      expect(rec?.outputs).toEqual([]);
      expect(rec?.creditsCharged).not.toBe(0);
    } finally {
      await store.close();
    }
  });

  it('unknown ids, a wrong MAC and other methods get a bare 404/405 and cause no read', async () => {
    fx = await fixture();
    const a = await fx.start();
    const job = await talkingVideo(fx, a, NEVER_DUE_MS);
    const reads = () => fx!.sim.log.count({ method: 'GET', path: '/video/status' });
    const before = reads();
    const [, tail] = job.hook!.split('/hooks/') as [string, string];
    const [ledgerId, mac] = tail.split('.') as [string, string];
    const wrongMac = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [
      `/hooks/${randomUUID()}.${mac}`,
      `/hooks/${ledgerId}.${wrongMac}`,
      `/hooks/${ledgerId}`,
      '/hooks/',
      `/hooks/${ledgerId.toUpperCase()}.${mac}`,
    ]) {
      const res = await rawRequest(`${a.origin}${path}`, { body: '{}' });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toBe('');
    }
    expect((await rawRequest(job.hook!, { method: 'GET' })).status).toBe(405);
    expect(reads()).toBe(before);
  });

  it('is rate-limited per job and per prober address; an oversized body is refused', async () => {
    fx = await fixture();
    const a = await fx.start();
    const job = await talkingVideo(fx, a, NEVER_DUE_MS);
    const codes: number[] = [];
    for (let i = 0; i <= HOOK_PER_JOB_PER_MIN; i++) codes.push((await rawRequest(job.hook!, { body: '{}' })).status);
    expect(codes.slice(0, HOOK_PER_JOB_PER_MIN).every((c) => c === 202)).toBe(true);
    expect(codes.at(-1)).toBe(429);

    const other = await talkingVideo(fx, a, NEVER_DUE_MS, 1);
    expect((await rawRequest(other.hook!, { body: 'x'.repeat(64 * 1024) })).status).toBe(413);

    const bad: number[] = [];
    for (let i = 0; i <= HOOK_BAD_PER_ADDR_PER_MIN; i++)
      bad.push((await rawRequest(`${a.origin}/hooks/${randomUUID()}.${'A'.repeat(32)}`, { body: '{}' })).status);
    expect(bad.slice(0, HOOK_BAD_PER_ADDR_PER_MIN).every((c) => c === 404)).toBe(true);
    expect(bad.at(-1)).toBe(429);
  });
});

describe('callbacks never bring status reads closer than the spec allows', () => {
  it('a replayed callback: reads of the job stay at least 5 s apart (platform-api.md "Limits")', async () => {
    fx = await fixture();
    const a = await fx.start();
    const job = await talkingVideo(fx, a, NEVER_DUE_MS);
    // One read now (the job is processing), then the same callback five times within a few hundred ms.
    expect(sc(await a.call('get_job', { handle: job.handle })).status).toBe('processing');
    for (let i = 0; i < HOOK_PER_JOB_PER_MIN; i++) {
      expect((await rawRequest(job.hook!, { body: '{}' })).status).toBe(202);
      await new Promise((r) => setTimeout(r, 60));
    }
    const reads = () =>
      fx!.sim.log.entries().filter((e) => e.method === 'GET' && e.path === '/video/status' && e.query.id === job.id);
    const first = reads().length;
    // The hinted read comes at the floor after the last read, once for all five callbacks.
    await vi.waitFor(() => expect(reads().length).toBe(first + 1), { timeout: SPEC_MIN_READ_GAP_MS + 2000 });
    await new Promise((r) => setTimeout(r, 300));
    const at = reads().map((e) => e.at);
    expect(at).toHaveLength(first + 1);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    console.error(`status reads of one job after 5 replayed callbacks: gaps ${gaps.join(', ')} ms`);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(SPEC_MIN_READ_GAP_MS);
  }, 15_000);
});

describe('what is sent', () => {
  it("an agent's own webhook_url (allow-listed) is sent unchanged, without ours", async () => {
    fx = await fixture({ allowlist: ['hooks.example.com'] });
    const a = await fx.start();
    // Never finishes within the test, so the sim never calls the agent's host.
    fx.sim.jobs.scriptNext({ durationMs: NEVER_DUE_MS });
    const own = 'https://hooks.example.com/genplat/abc';
    const r = sc(
      await a.call('create_talking_video', { avatar_id: 'av_marcus', voice_script: 'Hi.', webhook_url: own }),
    );
    expect(r.status).toBe('submitted');
    expect(bodyOf(posts(fx.sim, '/video/generate')[0]).webhook_url).toBe(own);
  });

  it('an agent webhook_url off the allow-list is still refused before any request', async () => {
    fx = await fixture();
    const a = await fx.start();
    const r = await a.call('create_talking_video', {
      avatar_id: 'av_marcus',
      voice_script: 'Hi.',
      webhook_url: 'https://hooks.example.com/x',
    });
    expect(r.isError).toBe(true);
    expect(fx.sim.log.count({ method: 'POST' })).toBe(0);
  });

  it('consent binds the agent request: quote → confirm works, and the POSTed body minus our callback is what was fingerprinted', async () => {
    fx = await fixture({ confirm: { mode: 'always' } });
    const a = await fx.start();
    const omni = `${fx.sim.vendors.H}-omni-flash-1-1-i2v`;
    const cases: { tool: string; args: Record<string, unknown>; route: string; ours: boolean }[] = [
      ...['create_talking_video', 'create_product_video', 'create_template_video'].map((tool) => ({
        tool,
        args: billableExample(tool).args(fx!.sim, 7),
        route: billableExample(tool).route(fx!.sim),
        ours: true,
      })),
      {
        tool: 'run_model',
        args: { model: omni, params: { prompt: 'a slow pan', image_url: 'https://cdn.example.com/first.png' } },
        route: '/enterprise/generate',
        ours: true,
      },
      // Webhook support not stated for this model, polling-only family and gesture endpoints: never ours.
      {
        tool: 'run_model',
        args: billableExample('run_model').args(fx.sim, 7),
        route: '/enterprise/generate',
        ours: false,
      },
      ...['create_family_video', 'animate_gesture'].map((tool) => ({
        tool,
        args: billableExample(tool).args(fx!.sim, 7),
        route: billableExample(tool).route(fx!.sim),
        ours: false,
      })),
    ];
    const store = await openConfiguredStore(fx.config, { warn: () => {} });
    try {
      for (const c of cases) {
        const sentBefore = posts(fx.sim, c.route).length;
        const quoted = sc(await a.call(c.tool, c.args));
        expect(quoted.status, c.tool).toBe('confirmation_required');
        expect(posts(fx.sim, c.route).length, c.tool).toBe(sentBefore);
        const done = sc(await a.call(c.tool, { ...c.args, confirmation_token: quoted.confirmation_token }));
        expect(done.status, c.tool).toBe('submitted');
        expect(posts(fx.sim, c.route).length, c.tool).toBe(sentBefore + 1);
        const body = bodyOf(posts(fx.sim, c.route).at(-1));
        const { webhook_url, ...agents } = body;
        if (c.ours) expect(String(webhook_url), c.tool).toMatch(new RegExp(`^${a.origin}/hooks/`));
        else expect(webhook_url, c.tool).toBeUndefined();
        const rec = await store.get(String(done.handle));
        expect(rec?.fingerprint, c.tool).toBe(fingerprint(c.tool, { route: c.route, body: agents }));
      }
    } finally {
      await store.close();
    }
  });
});
