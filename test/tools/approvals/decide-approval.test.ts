/**
 * `decide_approval` over real HTTP with named static tokens (owners `token:alice`, `token:lead`, …) against the
 * real runtime, store and simulator: the decider is the verified caller, never an argument. The requester,
 * an unlisted person, a second decision, an expired or unknown approval are refused with the reason, recorded
 * nowhere; the listed approver's one decision closes it. No platform request is ever made by the tool.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApprovalId } from '../../../src/approvals/handle.js';
import { type Config, loadConfig, parseCli } from '../../../src/config.js';
import { setTrustedMediaOrigins } from '../../../src/guards/url.js';
import { createLogger } from '../../../src/log.js';
import { type Simulator, startSimulator } from '../../../src/sim/index.js';
import { openSqliteStore } from '../../../src/store/sqlite.js';
import type { Store } from '../../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../../src/transports/http-main.js';
import { startHarness } from '../../helpers/harness.js';
import { connectClient, type TestClient, text } from '../../http/helpers.js';
import { newApproval } from '../../store/approvals-suite.js';

const TOKENS = { alice: 'alice-0123456789abcdef', lead: 'lead-0123456789abcdef', bob: 'bob-0123456789abcdef' };
const HOUR = 3_600_000;

let sim: Simulator;
let rt: HttpRuntime;
let dir: string;
let store: Store;
const clients: Record<keyof typeof TOKENS, TestClient> = {} as never;
const posts = () => sim.log.entries().filter((e) => e.method === 'POST').length;

async function pending(over: Parameters<typeof newApproval>[0] = {}) {
  const now = Date.now();
  return store.createApproval(newApproval({ createdAt: now, expiresAt: now + 24 * HOUR, ...over }));
}

beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  dir = await mkdtemp(join(tmpdir(), 'genplat-decide-'));
  const policy = join(dir, 'approvals.json');
  await writeFile(policy, JSON.stringify({ rules: [{ when: { credits_at_least: 300 }, approvers: ['token:lead'] }] }));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(TOKENS)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: policy,
  });
  const config: Config = { ...base, vendors: sim.vendors, logLevel: 'error' };
  rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20 },
  );
  store = await openSqliteStore(config.stateDir);
  for (const [name, token] of Object.entries(TOKENS))
    clients[name as keyof typeof TOKENS] = await connectClient(rt.http.url, token);
});

afterAll(async () => {
  for (const c of Object.values(clients)) await c?.close().catch(() => {});
  await store?.close();
  await rt?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

const decide = (who: keyof typeof TOKENS, id: string, decision: 'approve' | 'decline' = 'approve') =>
  clients[who].call('decide_approval', { approval: `approval:${id}`, decision });

describe('decide_approval over HTTP', () => {
  it('is listed with GENPLAT_APPROVALS, and takes no identity argument', async () => {
    const { tools } = await clients.lead.client.listTools();
    const tool = tools.find((t) => t.name === 'decide_approval');
    expect(tool).toBeDefined();
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual([
      'approval',
      'decision',
      'reason',
      'view_nonce',
    ]);
  });

  it('refuses the requester and an unlisted caller; the listed approver approves once; a second decision is refused', async () => {
    const a = await pending({ requirements: [{ rule: 'big', approvers: ['token:lead', 'token:alice'], required: 1 }] });
    const mine = await decide('alice', a.id);
    expect(mine.isError).toBe(true);
    expect(text(mine)).toContain('You asked for this call');
    const stranger = await decide('bob', a.id);
    expect(stranger.isError).toBe(true);
    expect(text(stranger)).toContain('not one of the approvers');
    expect((await store.approval(a.id))?.decisions).toEqual([]);

    const ok = await decide('lead', a.id);
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({
      approval: `approval:${a.id}`,
      state: 'approved',
      decision: 'approve',
    });
    const stored = await store.approval(a.id);
    expect(stored?.state).toBe('approved');
    expect(stored?.decisions).toMatchObject([{ by: 'token:lead', carrier: 'tool', decision: 'approve' }]);

    const again = await decide('lead', a.id, 'decline');
    expect(again.isError).toBe(true);
    expect(text(again)).toContain('already been decided');
    expect((await store.approval(a.id))?.decisions).toHaveLength(1);
    expect(posts()).toBe(0);
  });

  it('refuses an expired approval, an unknown id and a malformed handle, recording nothing', async () => {
    const now = Date.now();
    const old = await store.createApproval(newApproval({ createdAt: now - 2 * HOUR, expiresAt: now - HOUR }));
    const late = await decide('lead', old.id);
    expect(late.isError).toBe(true);
    expect(text(late)).toContain('expired');
    expect((await store.approval(old.id))?.decisions).toEqual([]);

    const unknown = await decide('lead', newApprovalId());
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('No approval with this handle');

    const bad = await clients.lead.call('decide_approval', { approval: 'actor_video:abc', decision: 'approve' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('not an approval handle');
    expect((await store.approvalAudit()).filter((e) => e.event !== 'requested')).toHaveLength(1);
    expect(posts()).toBe(0);
  });
});

describe('decide_approval over stdio', () => {
  it('is not listed (one local person cannot be the second, proven person); a call is refused', async () => {
    const h = await startHarness({ config: { approvalsFile: '/nonexistent/approvals.json' } });
    try {
      expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('decide_approval');
      const r = await h
        .call('decide_approval', { approval: `approval:${newApprovalId()}`, decision: 'approve' })
        .catch((e: Error) => e);
      expect(r instanceof Error ? r.message : r.isError && text(r)).toMatch(/decide_approval not found/);
      expect(h.sim.log.entries().filter((e) => e.method === 'POST')).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});

describe('decide_approval visibility', () => {
  it('listed only with an approval policy, and never in read-only mode', async () => {
    const { visibleSpecs } = await import('../../../src/tool-visibility.js');
    const { ALL_TOOLS } = await import('../../../tools/index.js');
    const base = loadConfig(parseCli([]), {
      GENPLAT_API_KEY: 'sk-test-key',
      GENPLAT_BASE_URL: 'http://127.0.0.1:9/api',
    });
    const names = (c: Config, on: 'http' | 'stdio' = 'http') => visibleSpecs(ALL_TOOLS, c, on).map((s) => s.name);
    expect(names(base)).not.toContain('decide_approval');
    expect(names({ ...base, approvalsFile: '/etc/approvals.json' })).toContain('decide_approval');
    expect(names({ ...base, approvalsFile: '/etc/approvals.json', readOnly: true })).not.toContain('decide_approval');
    expect(names({ ...base, approvalsFile: '/etc/approvals.json' }, 'stdio')).not.toContain('decide_approval');
  });
});
