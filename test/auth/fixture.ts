/**
 * OAuth HTTP fixture: a real OpenID provider (./idp.ts) and the real `startHttpRuntime` against a 'test'-timing
 * simulator, configured as an operator would: GENPLAT_OAUTH_ISSUER + GENPLAT_OAUTH_RESOURCE, plus named and
 * unnamed static tokens for headless callers. The resource URL must be known before the listener starts (it is
 * in the tokens' audience), so the port is chosen first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import { ALL_SCOPES } from '../../src/auth/scopes.js';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { INTROSPECTOR, startIdp, type TestIdp } from './idp.js';

export const BOT_TOKEN = 'bot-token-0123456789abcdef';
export const LEGACY_TOKEN = 'legacy-token-0123456789abcdef';
/** A resource the provider also serves, that is not us. */
export const FOREIGN_RESOURCE = 'http://127.0.0.1:9/other/mcp';

export interface OAuthFixture {
  idp: TestIdp;
  sim: Simulator;
  rt: HttpRuntime;
  /** Our canonical resource URL = the MCP endpoint. */
  url: string;
  config: Config;
  /** Moves the server's clock (token expiry) without sleeping. */
  advance(ms: number): void;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * `opaque`: the provider issues opaque access tokens and the server introspects them (RFC 7662).
 * `aliases`: more resource indicators the provider issues tokens for (other spellings of our URL).
 * `onLog`: receives the server's log lines from `warn` up (default: none are kept).
 */
export async function startOAuthFixture(
  opts: {
    opaque?: boolean;
    aliases?: (url: string) => string[];
    onLog?: (line: string) => void;
    /** Extra environment (issue 28: Slack auth, delegation). */
    env?: Record<string, string>;
  } = {},
): Promise<OAuthFixture> {
  // The port is chosen before the server binds it (the provider must know our URL first), so another process of
  // a busy run can take it in between: start again on a new port, a bounded number of times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(opts);
    } catch (err) {
      if (attempt >= 5 || !/is in use by another process/.test(String(err))) throw err;
    }
  }
}

async function startOnFreePort(opts: Parameters<typeof startOAuthFixture>[0] = {}): Promise<OAuthFixture> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const idp = await startIdp({
    resources: [url, FOREIGN_RESOURCE, ...(opts.aliases?.(url) ?? [])],
    scopes: [...ALL_SCOPES],
    opaque: opts.opaque,
  });
  const sim = await startSimulator({ timing: 'test' });
  setTrustedMediaOrigins([sim.origin]);
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-oauth-'));
  const base = loadConfig(parseCli(['--http', '--port', String(port)]), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: `bot=${BOT_TOKEN},${LEGACY_TOKEN}`,
    GENPLAT_OAUTH_ISSUER: idp.issuer,
    GENPLAT_OAUTH_RESOURCE: url,
    ...(opts.opaque
      ? {
          GENPLAT_OAUTH_INTROSPECTION_URL: `${idp.issuer}/token/introspection`,
          GENPLAT_OAUTH_CLIENT_ID: INTROSPECTOR.id,
          GENPLAT_OAUTH_CLIENT_SECRET: INTROSPECTOR.secret,
        }
      : {}),
    ...opts.env,
  });
  // GENPLAT_APPROVALS (in `env`) is read as the entry point reads it.
  const config: Config = await withApprovalPolicy({
    ...base,
    vendors: sim.vendors,
    confirm: { mode: 'always' },
    logLevel: 'error',
  });
  let offset = 0;
  const now = () => Date.now() + offset;
  const rt = await startHttpRuntime(
    config,
    opts.onLog ? createLogger('warn', opts.onLog) : createLogger('error', () => {}),
    { pollIntervalMs: 20, now },
  ).catch(async (err: unknown) => {
    await sim.close();
    await idp.close();
    await rm(stateDir, { recursive: true, force: true });
    throw err;
  });
  return {
    idp,
    sim,
    rt,
    url,
    config,
    advance: (ms) => {
      offset += ms;
    },
    async close() {
      await rt.close();
      await sim.close();
      await idp.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The ledger's owner of a job (read from the state dir's SQLite store, as the server wrote it). */
export async function ownerOfJob(f: OAuthFixture, handle: string): Promise<string | undefined> {
  const store = await (await import('../../src/store/sqlite.js')).openSqliteStore(f.config.stateDir);
  try {
    return (await store.get(handle))?.owner;
  } finally {
    await store.close();
  }
}
