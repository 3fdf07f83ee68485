/**
 * A real HTTP runtime with an approval policy, named static tokens and (optionally) a people file and a budgets
 * file, against a test simulator, with a client per token: the setup the held-call tests under budgets and
 * aliases share (held-send-team-budget, review7). `store` is a second handle on the runtime's SQLite store.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, type TestClient } from '../http/helpers.js';

export interface PolicyRuntime<N extends string> {
  sim: Simulator;
  rt: HttpRuntime;
  store: Store;
  clients: Record<N, TestClient>;
  /** POSTs the simulator has received so far (every paid route is a POST). */
  posts(): number;
  close(): Promise<void>;
}

/** A shoppable video the simulator prices at 350 credits, bounded; `context` makes each request distinct. */
export const shoppableVideo = (context: string) => ({
  category: 'gadgets',
  format: 'unboxing',
  image_urls: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
  context,
});

export async function startPolicyRuntime<N extends string>(o: {
  /** name → static token (each at least 16 characters); owner ids are `token:<name>`. */
  tokens: Record<N, string>;
  /** The approval policy (GENPLAT_APPROVALS). */
  approvals: unknown;
  /** The people file (GENPLAT_PEOPLE), YAML. */
  people?: string;
  /** The budgets file (GENPLAT_BUDGETS), YAML. */
  budgets?: string;
  /** The runtime's clock. */
  now?: () => number;
}): Promise<PolicyRuntime<N>> {
  const sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  const dir = await mkdtemp(join(tmpdir(), 'genplat-policy-runtime-'));
  const write = async (name: string, body: string) => {
    await writeFile(join(dir, name), body);
    return join(dir, name);
  };
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: join(dir, 'state'),
    GENPLAT_HTTP_TOKEN: Object.entries(o.tokens)
      .map(([n, t]) => `${n}=${t}`)
      .join(','),
    GENPLAT_APPROVALS: await write('approvals.json', JSON.stringify(o.approvals)),
    ...(o.people ? { GENPLAT_PEOPLE: await write('people.yaml', o.people) } : {}),
    ...(o.budgets ? { GENPLAT_BUDGETS: await write('budgets.yaml', o.budgets) } : {}),
    GENPLAT_MAX_CREDITS_PER_DAY: '100000',
  });
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    logLevel: 'error',
    confirm: { mode: 'never' },
  });
  const rt = await startHttpRuntime(
    config,
    createLogger('error', () => {}),
    { pollIntervalMs: 20, ...(o.now ? { now: o.now } : {}) },
  );
  const store = await openSqliteStore(config.stateDir);
  const clients = {} as Record<N, TestClient>;
  for (const [name, token] of Object.entries(o.tokens) as [N, string][])
    clients[name] = await connectClient(rt.http.url, token);
  return {
    sim,
    rt,
    store,
    clients,
    posts: () => sim.log.entries().filter((e) => e.method === 'POST').length,
    async close() {
      for (const c of Object.values(clients) as TestClient[]) await c.close().catch(() => {});
      await store.close();
      await rt.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
