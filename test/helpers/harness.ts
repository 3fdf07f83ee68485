/**
 * The integration-test harness: the real server (buildServer with the real platform client, ledger, catalog
 * and poller) talking to the simulator over loopback, and a real SDK `Client` over an in-memory transport.
 * Every tool test goes through it, so SDK schema conversion and validation run exactly as in a host.
 *
 *   const h = await startHarness();                       // sim (timing 'test'), temp state dir, policy never
 *   const r = await h.call('create_talking_video', {...}); // the CallToolResult
 *   expect(h.sim.log.count({ method: 'POST', path: '/video/generate' })).toBe(1);
 *   await h.close();
 *
 * Defaults worth knowing:
 * - `confirm` is `{mode: 'never'}` so tool tests reach the platform in one call; consent tests pass
 *   `config: { confirm: { mode: 'always' } }`. Ceilings stay at the real defaults (2000 / 10000).
 * - An unpublished price (`estimate.bounded: false`) is never auto-approved by a policy, so under `never` or
 *   `above:N` `call` answers such a `confirmation_required` once with its token, like a user who agrees to
 *   the quoted figure; pass `{raw: true}` to see the consent answer itself.
 * - The client declares no elicitation unless `onElicit` is given (`'never'` = declare it, never answer).
 * - Polling runs every `pollIntervalMs` (default 20 ms: sim 'test' jobs finish in ~20 ms).
 * - Logs are captured in `logs` (set HARNESS_LOG=1 to also print them to stderr).
 * - Protocol era: `era` or the env `GENPLAT_TEST_ERA` (`legacy` default). `legacy` = a 2025-11-25 client over
 *   an in-memory pair (one pinned instance, pushed elicitation); `modern` = a 2026-07-28 client (version pinned)
 *   over Streamable HTTP served in process by the SDK's `createMcpHandler` (a fresh instance per request,
 *   `input_required` consent), as a fleet instance serves it. vitest runs the suite once per era (vitest.config.ts).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CallToolResult,
  ClientCapabilities,
  ElicitRequest,
  ElicitResult,
  RequestOptions,
} from '@modelcontextprotocol/client';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createCatalog } from '../../src/catalog.js';
import { createPlatformClient, type PlatformClientHandle } from '../../src/client/index.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { ToolSpec } from '../../src/define-tool.js';
import type { FileServices } from '../../src/files/file-services.js';
import { finalJobCleanup } from '../../src/files/files-deps.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createPoller } from '../../src/jobs/poller.js';
import type { JobStore } from '../../src/jobs/store.js';
import { createLogger } from '../../src/log.js';
import { TOKEN_TTL_MS } from '../../src/paid/token.js';
import type { PersonLabel } from '../../src/people/directory.js';
import { consentStateCodec } from '../../src/protocol/request-state.js';
import { buildServer } from '../../src/server.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { sharedValidator } from './shared-validator.js';

/** Client capabilities of a host that renders MCP Apps (the `io.modelcontextprotocol/ui` extension). */
export const APPS_HOST = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
} as ClientCapabilities;

export interface HarnessOptions {
  /** Called at each named step of a paid call (src/kill-steps.ts): e.g. cut the store there. */
  onPaidStep?: (step: import('../../src/kill-steps.js').PaidStep) => void;
  /** The job store to run on (e.g. PostgreSQL behind a fault proxy); default SQLite in the state dir. */
  store?: (stateDir: string) => Promise<JobStore>;
  /** Merged over the config built from the sim (base URL, key, state dir). */
  config?: Partial<Config>;
  /** Extra client capabilities (elicitation is added by `onElicit`). */
  clientCapabilities?: ClientCapabilities;
  /** Declares form elicitation and answers with this; `'never'` declares it and never answers. */
  onElicit?: ((req: ElicitRequest) => Promise<ElicitResult>) | 'never';
  /** clientInfo.name (the elicitation skip list matches it). Default 'genplat-test'. */
  clientName?: string;
  /** Reuse a state dir (restart tests); default a fresh temp dir removed on close. */
  stateDir?: string;
  /** Reuse a simulator (not closed by the harness); default a fresh one with timing 'test'. */
  sim?: Simulator;
  /** Poller interval (default 20 ms). */
  pollIntervalMs?: number;
  /** Platform client request timeout (fault tests make it small). */
  clientTimeoutMs?: number;
  /** Clock (ms since epoch) for tokens and day boundaries. */
  now?: () => number;
  /** Confirmation-token lifetime. */
  tokenTtlMs?: number;
  /** Default ALL_TOOLS. */
  tools?: ToolSpec[];
  /** HTTP-mode caller id; undefined = stdio. */
  owner?: string;
  /** HTTP-mode: who the caller is (people file + verified claims: name, e-mail, groups = teams). */
  person?: PersonLabel;
  /** HTTP-mode credential level (src/auth/scopes.ts); undefined = the operator's process (spend). */
  access?: import('../../src/auth/scopes.js').Access;
  /** File services (HTTP's, or stdio `--sandbox`'s loopback staging: src/files/sandbox-staging.ts). */
  files?: FileServices;
  /** Protocol era of the client; default `GENPLAT_TEST_ERA` or `legacy`. */
  era?: Era;
}

export type Era = 'legacy' | 'modern';

/** The era this test run speaks (vitest.config.ts sets GENPLAT_TEST_ERA per project). */
export function testEra(): Era {
  return process.env.GENPLAT_TEST_ERA === 'modern' ? 'modern' : 'legacy';
}

export interface CallOptions {
  onprogress?: RequestOptions['onprogress'];
  signal?: AbortSignal;
  /** Request timeout in ms (SDK default 60 s). */
  timeout?: number;
  /** Return a consent answer for an unpublished price as is, instead of confirming it with its token. */
  raw?: boolean;
}

export interface Harness {
  era: Era;
  sim: Simulator;
  client: Client;
  /** Calls a tool through the real client; returns the CallToolResult (errors are `isError` results). */
  call(name: string, args?: Record<string, unknown>, opts?: CallOptions): Promise<CallToolResult>;
  jobs: JobStore;
  platform: PlatformClientHandle;
  config: Config;
  stateDir: string;
  /** Redacted log lines written by the server. */
  logs: string[];
  close(): Promise<void>;
}

/** The structured envelope of a result, typed loosely for assertions. */
export function structured(r: CallToolResult): Record<string, unknown> & { status?: string; handle?: string } {
  return (r.structuredContent ?? {}) as Record<string, unknown> & { status?: string; handle?: string };
}

/** All text blocks of a result joined (error results carry text only). */
export function text(r: CallToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
}

/**
 * Starts sim (unless given) + state dir + real client/ledger/catalog/poller + server + SDK client.
 * @throws whatever fails to start (port, ledger); everything already started is closed first.
 */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const closeAll = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  };
  try {
    const sim = opts.sim ?? (await startSimulator({ timing: 'test' }));
    if (!opts.sim) cleanups.push(() => sim.close());
    // Sim outputs live on loopback; tests chain them into other tools like a real sandbox session.
    setTrustedMediaOrigins([sim.origin]);

    const stateDir = opts.stateDir ?? (await mkdtemp(join(tmpdir(), 'genplat-test-')));
    if (!opts.stateDir) cleanups.push(() => rm(stateDir, { recursive: true, force: true }));

    const base = loadConfig(
      { command: 'serve', sandbox: false, readOnly: false, http: false } as Parameters<typeof loadConfig>[0],
      { GENPLAT_API_KEY: sim.apiKey, GENPLAT_BASE_URL: sim.baseUrl, GENPLAT_STATE_DIR: stateDir },
    );
    const config: Config = { ...base, vendors: sim.vendors, confirm: { mode: 'never' }, ...opts.config };

    const logs: string[] = [];
    const log = createLogger('debug', (line) => {
      logs.push(line);
      if (process.env.HARNESS_LOG) process.stderr.write(`${line}\n`);
    });

    const jobs = opts.store ? await opts.store(stateDir) : await openSqliteStore(stateDir);
    cleanups.push(() => jobs.close());
    const platform = createPlatformClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      vendors: config.vendors,
      logger: log,
      ...(opts.clientTimeoutMs !== undefined ? { timeoutMs: opts.clientTimeoutMs } : {}),
    });
    cleanups.push(() => platform.close());
    const interval = opts.pollIntervalMs ?? 20;
    // As the servers wire it (server-handlers.ts, http-main.ts): a final job's staged files are deleted then.
    const poller = createPoller({
      client: platform,
      jobs,
      log,
      intervalMs: { min: interval, max: interval },
      onFinal: finalJobCleanup(config, log),
    });
    cleanups.push(() => poller.close());

    const era = opts.era ?? testEra();
    const deps = {
      config,
      // Shared like the poller: per-request instances (modern) must not each start a cold catalog cache.
      catalog: createCatalog(platform),
      client: platform,
      jobs,
      poller,
      log,
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      ...(opts.person ? { person: opts.person } : {}),
      ...(opts.access !== undefined ? { access: opts.access } : {}),
      ...(opts.files ? { files: opts.files } : {}),
      ...(opts.tools ? { tools: opts.tools } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.tokenTtlMs ? { tokenTtlMs: opts.tokenTtlMs } : {}),
      ...(opts.onPaidStep ? { onPaidStep: opts.onPaidStep } : {}),
    };

    const capabilities: ClientCapabilities = { ...opts.clientCapabilities };
    if (opts.onElicit) capabilities.elicitation = { form: {} };
    const client = new Client(
      { name: opts.clientName ?? 'genplat-test', version: '0.0.0' },
      {
        capabilities,
        jsonSchemaValidator: sharedValidator,
        ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      },
    );
    const onElicit = opts.onElicit;
    if (onElicit) {
      client.setRequestHandler('elicitation/create', (req) =>
        onElicit === 'never' ? new Promise<ElicitResult>(() => {}) : onElicit(req),
      );
    }
    if (era === 'modern') {
      // As a fleet instance serves: a fresh server per request, one consent-state codec shared by all.
      const consentState = consentStateCodec(() => jobs.consentKey(), opts.tokenTtlMs ?? TOKEN_TTL_MS);
      const handler = createMcpHandler(() => buildServer({ ...deps, consentState, perRequest: true }).server);
      cleanups.push(() => handler.close());
      const transport = new StreamableHTTPClientTransport(new URL('http://harness.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      });
      await client.connect(transport);
    } else {
      const built = buildServer(deps);
      cleanups.push(() => built.close());
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await Promise.all([built.server.connect(serverSide), client.connect(clientSide)]);
    }
    cleanups.push(() => client.close());
    // The SDK client validates structuredContent only for tools it has listed: list once so every test
    // checks results against the published output schemas, as a host would.
    await client.listTools();

    return {
      era,
      sim,
      client,
      jobs,
      platform,
      config,
      stateDir,
      logs,
      call: async (name, args = {}, o = {}) => {
        const once = async (a: Record<string, unknown>) =>
          (await client.callTool(
            { name, arguments: a },
            {
              ...(o.onprogress ? { onprogress: o.onprogress } : {}),
              ...(o.signal ? { signal: o.signal } : {}),
              ...(o.timeout ? { timeout: o.timeout } : {}),
            },
          )) as CallToolResult;
        const r = await once(args);
        const s = structured(r) as { status?: string; confirmation_token?: string; estimate?: { bounded?: boolean } };
        const unboundedAsk =
          s.status === 'confirmation_required' && s.estimate?.bounded === false && s.confirmation_token;
        if (o.raw || !unboundedAsk || config.confirm.mode === 'always' || args.confirmation_token !== undefined) {
          return r;
        }
        return once({ ...args, confirmation_token: s.confirmation_token });
      },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
