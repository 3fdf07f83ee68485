/**
 * Invariant 5 (the API key leaves the process only in the X-Api-Key header to the base URL) and
 * invariant 6 (stdout carries only JSON-RPC), with a recognisable canary key.
 *
 * In process: every tool in ALL_TOOLS at least once (from test/helpers/examples.ts), jobs followed to the
 * end with progress, every POST fault kind, status-read faults, invalid input, every plain resource, and a
 * revoked key (401 on every call). Captured: every tool result (content + structuredContent), every log
 * line the logger writes, MCP logging notifications, progress notifications, every file in the state dir,
 * README.md and mcp.json. Then the same with the built server as a child process on stdio: its stdout and
 * stderr byte for byte, and its state dir. Any form of the key anywhere fails (secretForms: plain, URL-
 * and base64-encoded).
 *
 * What the simulator saw is checked too: the key arrived in X-Api-Key on every request, and never in a
 * URL, a query or a body.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultKind } from '../../src/sim/faults.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ALL_TOOLS } from '../../tools/index.js';
import { billableExample, billableTools, exampleFor } from '../helpers/examples.js';
import { type Harness, startHarness, structured, testEra } from '../helpers/harness.js';
import { listedWithoutPolicy } from '../helpers/listed-tools.js';
import { readTree, scanForSecret } from '../helpers/secret-scan.js';
import { ROOT, type SpawnedServer, spawnServer } from '../helpers/spawn-server.js';

/** Recognisable in any output; not the simulator's default key shape, so nothing else produces it. */
const CANARY = 'sk-genplat-CANARY-7f3a9c';
// An approval policy is named so decide_approval is listed and called like every other tool (src/tool-visibility.ts).
const CONFIG = {
  confirm: { mode: 'never' },
  maxCreditsPerCall: 1_000_000,
  maxCreditsPerDay: 10_000_000,
  approvalsFile: '/policy.json',
} as const;
const POST_FAULTS: FaultKind[] = [
  'server_error_after_accept',
  'server_error',
  'delay',
  'reset',
  'reset_after_accept',
  'malformed_json',
  'rate_limit',
  'unavailable',
];

type Source = { name: string; text: string };

/** Everything the server showed the outside world in one in-process session. */
interface Capture {
  sources: Source[];
  results: CallToolResult[];
}

async function docs(): Promise<Source[]> {
  return Promise.all(
    ['README.md', 'mcp.json'].map(async (f) => ({ name: f, text: await readFile(join(ROOT, f), 'utf8') })),
  );
}

/** The simulator received the key only where it belongs. */
function expectKeyOnlyInHeader(sim: Simulator): void {
  const entries = sim.log.entries();
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) {
    expect(e.headers['x-api-key-present'], `${e.method} ${e.path}`).toBe('yes');
    expect(scanForSecret(CANARY, [{ name: 'request', text: JSON.stringify({ ...e, headers: undefined }) }])).toEqual(
      [],
    );
  }
}

/** Runs `scenario` against a harness whose platform key is the canary, capturing every output. */
/**
 * Tools are listed on the transport they work on (src/tool-visibility.ts): the harness without an owner serves
 * as stdio does, with one as HTTP does. Every tool is called on its own transport.
 */
const toolsOn = (transport: 'stdio' | 'http') =>
  ALL_TOOLS.filter((t) => (transport === 'stdio' ? t.only !== 'http' : t.only === 'http'));
const HTTP_OWNER = { owner: 'token:secrets-test' } as const;

async function session(
  sim: Simulator,
  scenario: (
    call: (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>,
    h: Harness,
  ) => Promise<void>,
  as: { owner?: string } = {},
): Promise<Capture> {
  // Generous for a loaded CI box; the delay fault below holds its answer well past it.
  const h = await startHarness({ sim, config: CONFIG, clientTimeoutMs: 1_000, ...as });
  const sources: Source[] = [];
  const results: CallToolResult[] = [];
  try {
    h.client.setNotificationHandler('notifications/message', (n) => {
      sources.push({ name: 'mcp-logging', text: JSON.stringify(n.params) });
    });
    // MCP logging is a 2025-era session feature (deprecated and per request on 2026-07-28, where we send none).
    if (h.era === 'legacy') await h.client.setLoggingLevel('debug');
    let n = 0;
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = (await h.client.callTool(
        { name: tool, arguments: args },
        {
          onprogress: (p) => sources.push({ name: `progress:${tool}`, text: JSON.stringify(p) }),
          timeout: 30_000,
        },
      )) as CallToolResult;
      results.push(r);
      sources.push({ name: `result#${n++}:${tool}`, text: JSON.stringify(r) });
      return r;
    };
    await scenario(call, h);
    // Resources are outputs too (jobs, spend and catalogs carry ledger and platform data).
    // An error answer is an output as well: its message is scanned like a result.
    const listed = await h.client.listResources().catch((err: unknown) => {
      sources.push({ name: 'resources/list error', text: String(err) });
      return { resources: [] };
    });
    for (const res of listed.resources) {
      const r = await h.client.readResource({ uri: res.uri }).catch((err: unknown) => ({ error: String(err) }));
      sources.push({ name: `resource:${res.uri}`, text: JSON.stringify(r) });
    }
    sources.push(...(await readTree(h.stateDir)));
    sources.push({ name: 'logger', text: h.logs.join('\n') });
  } finally {
    await h.close();
  }
  return { sources, results };
}

/** Every tool once (examples), jobs followed to the end, every POST fault, status-read faults, bad input. */
async function everything(
  sim: Simulator,
  call: (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>,
): Promise<void> {
  const handles: string[] = [];
  for (const t of toolsOn('stdio')) {
    const r = await call(t.name, exampleFor(t.name).args(sim, 0));
    const handle = structured(r).handle;
    // Only the jobs the billable tools started: get_job's example names a job that does not exist, and waiting
    // on it held this wait for its whole max_wait_s (20 s of a 30 s test; the modern run timed out under load).
    if (t.billable !== undefined && typeof handle === 'string' && !handle.startsWith('submission:'))
      handles.push(handle);
  }
  expect(handles.length).toBeGreaterThan(0);
  // Followed to the end: the wait returns when the last job finishes (an event), 20 s is only its bound.
  expect(structured(await call('wait_for_jobs', { handles, max_wait_s: 20 })).done).toBe(true);
  for (const h of handles) await call('get_job', { handle: h });

  // Faults on the talking-video POST (new arguments each time, so the duplicate guard stays out of it).
  const talk = billableExample('create_talking_video');
  for (const [i, kind] of POST_FAULTS.entries()) {
    sim.faults.add({ method: 'POST', path: talk.route(sim), kind, ...(kind === 'delay' ? { delayMs: 2_500 } : {}) });
    const r = await call('create_talking_video', talk.args(sim, 100 + i));
    if (structured(r).status === 'unknown') await call('create_talking_video', talk.args(sim, 100 + i));
  }
  // A status read that fails (5xx, then a 429) before it succeeds, on a job long enough for progress.
  sim.jobs.scriptNext({ durationMs: 2_500 });
  const s = structured(await call('create_talking_video', talk.args(sim, 200)));
  sim.faults.add({ method: 'GET', path: '/video/status', kind: 'server_error', times: 1 });
  sim.faults.add({ method: 'GET', path: '/video/status', kind: 'rate_limit', retryAfterS: 0, times: 1 });
  await call('wait_for_jobs', { handles: [String(s.handle)], max_wait_s: 20 });

  // Errors: bad input, a platform 404, a hostile URL, an unknown key.
  await call('create_talking_video', { avatar_id: 'av_marcus', voice_script: '' });
  await call('get_job', { kind: 'actor_video', id: 'no-such-job' });
  await call('animate_gesture', { prompt: 'wave', image_url: 'http://169.254.169.254/latest/meta-data/' });
  await call('list_avatars', { api_key: CANARY });
  await call('list_jobs', {});
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ timing: 'test', apiKey: CANARY });
});
afterAll(() => sim.close());

describe('the scanner', () => {
  it('finds the key plain, in any case, URL-encoded and base64 at every offset', () => {
    const hits = (text: string) => scanForSecret(CANARY, [{ name: 't', text }]).length;
    expect(hits(`{"x":"${CANARY}"}`)).toBeGreaterThan(0);
    expect(hits(`header: ${CANARY.toUpperCase()}`)).toBeGreaterThan(0);
    expect(hits(new URLSearchParams({ key: `${CANARY}/x y` }).toString())).toBeGreaterThan(0);
    for (const prefix of ['', 'a', 'ab', 'abc', 'Basic user:']) {
      expect(hits(Buffer.from(`${prefix}${CANARY} tail`).toString('base64')), prefix).toBeGreaterThan(0);
      expect(hits(Buffer.from(`${prefix}${CANARY}`).toString('base64url')), prefix).toBeGreaterThan(0);
    }
    expect(hits('sk-genplat-[redacted] and nothing else')).toBe(0);
  });
});

describe('invariant 5: the canary key never leaves the process but in X-Api-Key', () => {
  it('in process: every tool, faults, errors; results, logs, notifications, ledger and docs are clean', async () => {
    sim.log.clear();
    const cap = await session(sim, (call) => everything(sim, call));
    // The HTTP-only tools (request_upload, decide_approval) on the transport that lists them.
    const http = await session(
      sim,
      async (call) => {
        for (const t of toolsOn('http')) await call(t.name, exampleFor(t.name).args(sim, 0));
      },
      HTTP_OWNER,
    );
    expect(http.results.length).toBe(toolsOn('http').length);
    expect(http.results.length).toBeGreaterThan(0);
    expect(scanForSecret(CANARY, http.sources)).toEqual([]);
    // The scenario really exercised what it claims: every tool answered, and some errors came back.
    expect(cap.results.length).toBeGreaterThan(toolsOn('stdio').length + POST_FAULTS.length);
    expect(cap.results.some((r) => r.isError)).toBe(true);
    // 2026-07-28 clients get no MCP log messages (src/server.ts), so only a 2025-era session has that channel.
    expect(cap.sources.some((s) => s.name === 'mcp-logging')).toBe(testEra() === 'legacy');
    expect(cap.sources.some((s) => s.name.startsWith('progress:'))).toBe(true);
    expect(cap.sources.some((s) => s.name.startsWith('state:'))).toBe(true);
    expect(scanForSecret(CANARY, [...cap.sources, ...(await docs())])).toEqual([]);
    expectKeyOnlyInHeader(sim);
    // A bound only: every wait in the scenario ends on an answer or a finished job.
  }, 120_000);

  it('a revoked key (401 everywhere) is reported without being quoted', async () => {
    const revoked = await startSimulator({ timing: 'test', apiKey: CANARY });
    revoked.accounts.add({ key: CANARY, subscription: 'inactive' });
    try {
      const cap = await session(revoked, async (call) => {
        for (const t of toolsOn('stdio')) await call(t.name, exampleFor(t.name).args(revoked, 0));
      });
      const http = await session(
        revoked,
        async (call) => {
          for (const t of toolsOn('http')) await call(t.name, exampleFor(t.name).args(revoked, 0));
        },
        HTTP_OWNER,
      );
      expect(scanForSecret(CANARY, http.sources)).toEqual([]);
      const texts = cap.results.map((r) => JSON.stringify(r.content));
      expect(
        texts.some((t) => /401|API key|GENPLAT_API_KEY/.test(t)),
        texts.join('\n'),
      ).toBe(true);
      // A failing catalog listing must not take resources/list down with it (the local ones remain).
      expect(cap.sources.filter((s) => s.name === 'resources/list error')).toEqual([]);
      expect(cap.sources.some((s) => s.name.startsWith('resource:genplat://jobs'))).toBe(true);
      expect(scanForSecret(CANARY, cap.sources)).toEqual([]);
      expect(revoked.log.count()).toBeGreaterThan(0);
    } finally {
      await revoked.close();
    }
  }, 120_000);
});

describe('invariants 5 and 6 over stdio: the built server as a child process', () => {
  let server: SpawnedServer | undefined;
  let stateDir: string;
  afterAll(async () => {
    await server?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('stdout is JSON-RPC only, and neither stdout, stderr nor the state dir holds the key', async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'genplat-secrets-'));
    const vendors = Object.entries(sim.vendors)
      .map(([letter, name]) => `${letter}=${name}`)
      .join(',');
    server = await spawnServer({
      GENPLAT_API_KEY: CANARY,
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_STATE_DIR: stateDir,
      GENPLAT_VENDORS: vendors,
      GENPLAT_CONFIRM: 'never',
      GENPLAT_MAX_CREDITS_PER_CALL: '1000000',
      GENPLAT_MAX_CREDITS_PER_DAY: '10000000',
      GENPLAT_LOG_LEVEL: 'debug',
    });
    const client = server.client;
    const results: string[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool(
        { name, arguments: args },
        {
          timeout: 30_000,
        },
      )) as CallToolResult;
      results.push(JSON.stringify(r));
      return r;
    };
    // Not the App's Confirm button: it is listed only to clients that declare MCP Apps (src/protocol/app-only.ts).
    expect((await client.listTools()).tools.length).toBe(listedWithoutPolicy('stdio').length);
    // Every billable tool once (the read tools ran in process; here the point is the process boundary).
    for (const t of billableTools()) await call(t.name, billableExample(t.name).args(sim, 500));
    sim.faults.add({ method: 'POST', path: '/video/generate', kind: 'server_error_after_accept' });
    await call('create_talking_video', billableExample('create_talking_video').args(sim, 501));
    await call('get_job', { kind: 'actor_video', id: 'no-such-job' });
    await call('create_talking_video', { avatar_id: 'av_marcus', voice_script: '', api_key: CANARY });
    // The key stops working: 401s over stdio. (A list no call above has read: the catalog cache would answer.)
    sim.accounts.add({ key: CANARY, subscription: 'inactive' });
    const denied = await call('list_template_categories', {});
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/401|API key/);
    expect(await server.close()).toBe(0);

    const stdout = server.stdout();
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      let parsed: unknown;
      expect(
        () => {
          parsed = JSON.parse(line);
        },
        `stdout line is not JSON: ${line.slice(0, 200)}`,
      ).not.toThrow();
      expect(JSONRPCMessageSchema.safeParse(parsed).success, `stdout line is not JSON-RPC: ${line.slice(0, 200)}`).toBe(
        true,
      );
    }
    expect(stdout.endsWith('\n')).toBe(true);
    // The server did log (so the stderr check below is not vacuous).
    expect(server.stderr()).toMatch(/genplat-mcp/);
    const leaks = scanForSecret(CANARY, [
      { name: 'stdout', text: stdout },
      { name: 'stderr', text: server.stderr() },
      { name: 'results', text: results.join('\n') },
      ...(await readTree(stateDir)),
    ]);
    expect(leaks).toEqual([]);
    expectKeyOnlyInHeader(sim);
    // Every step above waits on an event (the child's spawn, each answer, its exit); this is only the bound. Starting
    // the bundled bin and a dozen calls took 10 s in the modern run on a loaded 2-core box, and passed 30 s twice.
  }, 180_000);
});
