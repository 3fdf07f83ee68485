/**
 * Per-user budgets and the audit trail across a fleet (issue 14 items 4-5): three built servers in HTTP mode
 * on one PostgreSQL database, four bearer-token callers, one simulator on loopback as the referee. Every
 * caller fires at once, spread over the three processes: each spends exactly their own budget, the account
 * ceiling caps the rest exactly, and `genplat-mcp audit export` (the bin, run against the same database)
 * lists exactly the POSTs the simulator received, by request id, without a token or the key.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { ownerId } from '../../src/transports/http-auth.js';
import { parseCsv } from '../helpers/csv.js';
import { scanForSecret } from '../helpers/secret-scan.js';
import { ENTRY, ensureBuilt } from '../helpers/spawn-server.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

const POSTS = { method: 'POST', path: '/video/generate' } as const;
const TOKENS = {
  alice: 'fleet-alice-0123456789abcdef',
  bob: 'fleet-bob-0123456789abcdef01',
  carol: 'fleet-carol-0123456789abcdef',
  dave: 'fleet-dave-0123456789abcdef0',
};
type Who = keyof typeof TOKENS;
const CALLS_EACH = 12;

let sim: Simulator;
let env: Record<string, string>;
const children: ChildProcess[] = [];
const urls: string[] = [];

/** Starts the bin in HTTP mode; resolves with its MCP URL once it logs "ready on". */
function startServer(): Promise<string> {
  const child = spawn(process.execPath, [ENTRY, '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /ready on (http:\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
}

async function connect(url: string, who: Who): Promise<Client> {
  const client = new Client({ name: `fleet-${who}`, version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKENS[who]}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ timing: 'test' });
  env = {
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_CONFIRM: 'never',
    GENPLAT_DATABASE_URL: await createTestDatabase(),
    GENPLAT_STATE_DIR: mkdtempSync(join(tmpdir(), 'genplat-budgets-')),
    GENPLAT_HTTP_TOKEN: Object.values(TOKENS).join(','),
    // No rate limit or in-flight cap in the way of 48 calls at once.
    GENPLAT_HTTP_RATE_LIMIT: '10000',
    GENPLAT_HTTP_MAX_INFLIGHT: '200',
    GENPLAT_HTTP_MAX_INFLIGHT_PER_TOKEN: '100',
    // A short talking video is quoted 100: the account takes 10 jobs a day, a caller 3, bob 5.
    GENPLAT_MAX_CREDITS_PER_CALL: '100',
    GENPLAT_MAX_CREDITS_PER_DAY: '1000',
    GENPLAT_USER_MAX_CREDITS_PER_DAY: '300',
    GENPLAT_USER_BUDGETS: JSON.stringify({ [ownerId(TOKENS.bob)]: 500 }),
  };
  // The first creates the schema; the others open it.
  urls.push(await startServer());
  urls.push(...(await Promise.all([startServer(), startServer()])));
}, 180_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await sim?.close();
  await dropTestDatabases();
});

const status = (r: CallToolResult) =>
  r.isError ? 'refused' : String((r.structuredContent as { status?: unknown } | undefined)?.status);
const errorText = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? (c as { text: string }).text : '')).join('\n');

/** `who` fires CALLS_EACH different calls at once, round-robin over the three processes. */
async function burst(who: Who, tag: string): Promise<CallToolResult[]> {
  const clients = await Promise.all(urls.map((u) => connect(u, who)));
  try {
    return (await Promise.all(
      Array.from({ length: CALLS_EACH }, (_, i) =>
        clients[i % clients.length]!.callTool({
          name: 'create_talking_video',
          arguments: { avatar_id: 'av_marcus', voice_script: `${who} ${tag} take ${i}.` },
        }),
      ),
    )) as CallToolResult[];
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

function exportAudit(format: 'csv' | 'jsonl', extra: string[] = []) {
  // Only the store settings: the export needs no API key, and none is given.
  const r = spawnSync(process.execPath, [ENTRY, 'audit', 'export', '--format', format, ...extra], {
    env: {
      PATH: process.env.PATH ?? '',
      GENPLAT_DATABASE_URL: env.GENPLAT_DATABASE_URL!,
      GENPLAT_STATE_DIR: env.GENPLAT_STATE_DIR!,
    },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return { out: r.stdout, err: r.stderr };
}

describe('per-user budgets across 3 processes on PostgreSQL', () => {
  it('two callers racing at once each spend exactly their own budget (3 and 5 jobs)', async () => {
    sim.jobs.scriptNext({ durationMs: 600_000 }, 2 * CALLS_EACH);
    const before = sim.log.count(POSTS);
    const [a, b] = await Promise.all([burst('alice', 'race'), burst('bob', 'race')]);
    expect(a.filter((r) => status(r) === 'submitted')).toHaveLength(3);
    expect(b.filter((r) => status(r) === 'submitted')).toHaveLength(5);
    expect(sim.log.count(POSTS) - before).toBe(8);
    // Refusals are tool errors (never an HTTP 403) naming the caller's budget and what to do.
    const refusal = a.find((r) => r.isError)!;
    expect(errorText(refusal)).toMatch(/per-user daily budget of 300 credits.*ask the operator to raise your budget/s);
    expect(errorText(b.find((r) => r.isError)!)).toMatch(/per-user daily budget of 500 credits/);
  }, 120_000);

  it('two more callers against the account ceiling: exactly the 2 jobs it has left', async () => {
    sim.jobs.scriptNext({ durationMs: 600_000 }, 2 * CALLS_EACH);
    const before = sim.log.count(POSTS);
    const [c, d] = await Promise.all([burst('carol', 'race'), burst('dave', 'race')]);
    const sent = [...c, ...d].filter((r) => status(r) === 'submitted');
    expect(sent).toHaveLength(2);
    expect(sim.log.count(POSTS) - before).toBe(2);
    const refusals = [...c, ...d].filter((r) => r.isError).map(errorText);
    expect(refusals.every((t) => /per-day ceiling of 1,000 credits \(GENPLAT_MAX_CREDITS_PER_DAY\)/.test(t))).toBe(
      true,
    );
  }, 120_000);

  it('audit export (the bin, JSONL and CSV) lists every POST once by request id, per caller, with no secret', async () => {
    const posts = sim.log.entries().filter((e) => e.method === POSTS.method && e.path === POSTS.path);
    const { out, err } = exportAudit('jsonl');
    const rows = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(posts.length);
    expect(rows.map((r) => r.request_id).sort()).toEqual(posts.map((p) => p.requestId).sort());
    const per = (who: Who) => rows.filter((r) => r.owner === ownerId(TOKENS[who])).length;
    expect([per('alice'), per('bob'), per('carol') + per('dave')]).toEqual([3, 5, 2]);
    const bobOnly = exportAudit('jsonl', ['--user', ownerId(TOKENS.bob)])
      .out.trimEnd()
      .split('\n');
    expect(bobOnly).toHaveLength(5);

    const csv = exportAudit('csv');
    const [header, ...lines] = parseCsv(csv.out);
    expect(header?.[0]).toBe('ledger_id');
    expect(lines.map((l) => l[header!.indexOf('request_id')]).sort()).toEqual(rows.map((r) => r.request_id).sort());

    const texts = [out, err, csv.out, csv.err].map((text, i) => ({ name: `export ${i}`, text }));
    for (const secret of [sim.apiKey, ...Object.values(TOKENS)]) expect(scanForSecret(secret, texts)).toEqual([]);
  }, 120_000);
});
