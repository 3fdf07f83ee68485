/**
 * `genplat-mcp --http`: the shared parts (one ledger, one platform client, one poller, one catalog) plus a
 * Streamable HTTP listener that builds one MCP server per session for the authenticated caller.
 */
import { createCatalog } from '../catalog.js';
import { createPlatformClient } from '../client/index.js';
import type { Config } from '../config.js';
import { ConfigurationError } from '../errors.js';
import { setTrustedMediaOrigins } from '../guards/url.js';
import { createPoller } from '../jobs/poller.js';
import { createLogger, type Logger, registerSecret } from '../log.js';
import { buildServer } from '../server.js';
import type { Simulator } from '../sim/index.js';
import { startSandbox } from '../sim/sandbox.js';
import { openConfiguredStore } from '../store/index.js';
import { type HttpServerHandle, startHttpServer } from './http.js';
import { isLoopbackBind } from './http-guards.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

export interface HttpRuntime {
  http: HttpServerHandle;
  sim: Simulator | undefined;
  /** Closes the listener and sessions, then the poller, client, ledger and simulator. */
  close(): Promise<void>;
}

/**
 * Starts everything. The caller installs signal handlers (see `serveHttp`).
 * @throws ConfigurationError without a bearer token, or when the key/base URL are missing.
 */
/** Test hooks: a fast poller (sim 'test' jobs finish in ~20 ms) and a movable clock for expiry and rates. */
export interface HttpRuntimeHooks {
  pollIntervalMs?: number;
  now?: () => number;
}

export async function startHttpRuntime(
  config: Config,
  log: Logger,
  hooks: HttpRuntimeHooks = {},
): Promise<HttpRuntime> {
  if (config.http.tokens.length === 0) {
    throw new ConfigurationError([
      'GENPLAT_HTTP_TOKEN is required with --http: every request must carry "Authorization: Bearer <token>".',
      "Generate one with: node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\" (comma-separate several, one per caller)",
    ]);
  }
  for (const t of config.http.tokens) registerSecret(t);

  const steps: (() => Promise<unknown> | unknown)[] = [];
  const closeAll = async () => {
    // Each step is independent: one failing must not keep the ledger or the simulator open.
    for (const step of steps.reverse()) {
      try {
        await step();
      } catch (err) {
        log.warn('error during shutdown', { error: String(err) });
      }
    }
  };
  try {
    let sim: Simulator | undefined;
    let { apiKey, baseUrl } = config;
    if (config.sandbox) {
      sim = await startSandbox(config, log);
      steps.push(() => sim?.close());
      apiKey = sim.apiKey;
      baseUrl = sim.baseUrl;
      setTrustedMediaOrigins([sim.origin]);
      log.info(`SANDBOX: using the built-in simulator at ${sim.baseUrl}; no real credits are spent`);
    }
    if (!apiKey || !baseUrl) throw new ConfigurationError(['GENPLAT_API_KEY and GENPLAT_BASE_URL are required']);
    log.addSecret(apiKey);

    const jobs = await openConfiguredStore(config, log);
    log.info(`job store: ${jobs.description}`);
    steps.push(() => jobs.close());
    const client = createPlatformClient({ baseUrl, apiKey, vendors: config.vendors, logger: log });
    steps.push(() => client.close());
    // Shared by every session: one status read per job per interval however many callers wait on it.
    const interval = hooks.pollIntervalMs;
    const poller = createPoller({
      client,
      jobs,
      log,
      ...(interval !== undefined ? { intervalMs: { min: interval, max: interval } } : {}),
    });
    steps.push(() => poller.close());
    const catalog = createCatalog(client);

    const http = await startHttpServer({
      ...config.http,
      log,
      ...(hooks.now ? { now: hooks.now } : {}),
      newSession: (owner) =>
        // A logger per session: buildServer forwards its logger's lines to that session's MCP log, and one
        // caller must never see another caller's log lines (handles, ledger ids).
        buildServer({ config, client, jobs, poller, catalog, owner, log: createLogger(config.logLevel) }),
    });
    steps.push(() => http.close());

    if (!isLoopbackBind(config.http.host)) {
      for (const line of [
        '',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        `!! WARNING: genplat-mcp is listening on ${config.http.host}, reachable from other machines.`,
        '!! Anyone holding a bearer token can spend credits within the ceilings. Put a TLS-terminating proxy in',
        '!! front (the token is plain text over http) and set GENPLAT_HTTP_ALLOWED_HOSTS to its host name.',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        '',
      ])
        say(line);
    }
    log.info(`ready on ${http.url} (${config.http.tokens.length} token(s); state dir ${config.stateDir})`);
    return { http, sim, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The bin's `--http` branch: runs until SIGINT/SIGTERM. */
export async function serveHttp(config: Config, log: Logger): Promise<void> {
  const rt = await startHttpRuntime(config, log);
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down (${why})`);
    await rt.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
