#!/usr/bin/env node
/**
 * The `genplat-mcp` bin: config → (sandbox simulator) → job store → client → server → stdio.
 * stdout carries JSON-RPC only (invariant 6): every human-readable line goes to stderr.
 */
// Must stay the first import: it refuses an old Node.js before any other module is evaluated.
import './node-gate.js';
import { join } from 'node:path';
import { watchQueuedCampaigns } from './campaign-watch.js';
import { createPlatformClient } from './client/index.js';
import { type CliArgs, type Config, loadConfig, parseCli } from './config.js';
import { ConfigurationError } from './errors.js';
import type { SandboxStaging } from './files/sandbox-staging.js';
import { StateError } from './jobs/state-error.js';
import { stepReached } from './kill-steps.js';
import { createLogger, type Logger, redact } from './log.js';
import { startedByNpm, watchParent } from './parent-watch.js';
import { buildDeferredServer, canDeferHandlers } from './server-deferred.js';
import type { ServerDeps } from './server-deps.js';
import type { SandboxSimulator } from './sim/sandbox.js';
import { openConfiguredStore, SchemaMigrationNeededError, SchemaTooNewError } from './store/index.js';
import { startMetrics } from './telemetry/metrics-start.js';
import { timedStore } from './telemetry/metrics-store.js';
import { startTracing, stopTracing } from './telemetry/traces.js';
import { tracesWords } from './telemetry/traces-wording.js';
import { connectStdio } from './transports/stdio.js';

// Only the stdio server path is imported statically. `doctor`, `sim`, `--sandbox` and `--http` load their
// modules on demand (the simulator alone is ~30 modules, the HTTP transport pulls in @hono/node-server):
// every module loaded before the first tools/list is start-up time and resident memory for the common case.

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Bad flags and bad settings alike: one line each on stderr, exit 2 (the usage-error convention). */
function orExit<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigurationError) {
      for (const p of err.problems) say(`genplat-mcp: ${p}`);
      process.exit(2);
    }
    // parseArgs' own errors (a flag without its value) are usage problems too.
    say(`genplat-mcp: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
}

async function serve(config: Config, log: Logger): Promise<void> {
  let sim: SandboxSimulator | undefined;
  let { apiKey, baseUrl } = config;
  if (config.sandbox) {
    const { startSandbox } = await import('./sim/sandbox.js');
    sim = await startSandbox(config, log);
    apiKey = sim.apiKey;
    baseUrl = sim.baseUrl;
    // The simulator's media live on loopback; outputs of its jobs must be usable as inputs. Imported here: the URL
    // guard (and ipaddr.js, a CommonJS package) is not needed before the first tool call otherwise.
    const { setTrustedMediaOrigins } = await import('./guards/url.js');
    setTrustedMediaOrigins([sim.origin]);
    log.info(`SANDBOX: using the built-in simulator at ${sim.baseUrl}; no real credits are spent`);
  }
  if (!apiKey || !baseUrl) throw new ConfigurationError(['GENPLAT_API_KEY and GENPLAT_BASE_URL are required']);
  log.addSecret(apiKey);

  // Metrics over OTLP (issue 30; /metrics is HTTP only): the SDK loads only when configured.
  const telemetry = await startMetrics(config, log);
  const jobs = timedStore(await openConfiguredStore(config, log, { spool: true }));
  log.info(`job store: ${jobs.description}`);
  telemetry?.observeStore(jobs);
  // stdio has no listener: the sandbox starts a loopback one that serves its staged files to its simulator, so a
  // local file works with no bucket (src/files/sandbox-staging.ts).
  let staging: SandboxStaging | undefined;
  if (sim) {
    const { startSandboxStaging } = await import('./files/sandbox-staging.js');
    staging = await startSandboxStaging({ config, jobs, sim, log });
  }
  const client = createPlatformClient({ baseUrl, apiKey, vendors: config.vendors, logger: log });
  // Campaign items admitted but not sent (an earlier process stopped mid-campaign) are sent from here on; the
  // sender itself loads only once the store holds a queued item (src/campaign-watch.ts).
  const campaigns = watchQueuedCampaigns({
    config,
    client,
    jobs,
    log,
    onStep: stepReached(config.testKillAt),
    files: staging?.files,
  });
  // Events to bots (GENPLAT_EVENTS_*, docs/events.md): delivered from here too, every open job followed. Its own
  // poller takes the store's per-job lease, so the connection's poller and it never read a job twice per interval.
  const events = config.events?.endpoints.length ? await startStdioEvents(config, client, jobs, log) : undefined;
  // The factory runs once per connection (serveStdio pins one instance); its poller is closed with it.
  const built: { close(): Promise<void> }[] = [];
  const deps: ServerDeps = { config, client, jobs, log, ...(staging ? { files: staging.files } : {}) };
  // The tools, resources and prompts load on the first request that needs them (src/server-deferred.ts) when the
  // build's tools/list covers this configuration; otherwise the whole server is built now, as unbundled.
  const loadFailed = (err: unknown) => {
    say(redact(`genplat-mcp: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
    process.exit(1);
  };
  const whole = canDeferHandlers(config) ? undefined : (await import('./server.js')).buildServer;
  const conn = connectStdio(({ era }) => {
    // A 2026-07-28 connection's listen streams are fed by its instance (src/protocol/stdio-listen.ts).
    const mine = { ...deps, listenStreams: era === 'modern' };
    const b = whole ? whole(mine) : buildDeferredServer(mine, loadFailed);
    built.push(b);
    return b.server;
  });
  const close = async () => {
    await events?.close();
    await campaigns.close();
    await conn.close();
    for (const b of built) await b.close();
  };
  log.info(`ready on stdio (state dir ${config.stateDir})`);

  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down (${why})`);
    // Each step is independent: one failing must not keep the ledger or the simulator open.
    const steps = [
      close,
      async () => staging?.close(),
      () => client.close(),
      // Before the store: the metrics' last export reads its gauges (open jobs, the outbox) from it.
      async () => telemetry?.close(),
      () => jobs.close(),
      async () => sim?.close(),
      // Last: the spans of the steps above are flushed to the collector too.
      () => stopTracing(),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        log.warn('error during shutdown', { error: String(err) });
      }
    }
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(signal));
  void conn.closed.then(() => shutdown('stdin closed'));
}

/** The event worker and follower of the stdio bin, loaded only when events are configured. */
async function startStdioEvents(
  config: Config,
  client: Parameters<typeof watchQueuedCampaigns>[0]['client'],
  jobs: Parameters<typeof watchQueuedCampaigns>[0]['jobs'],
  log: Logger,
): Promise<{ close(): Promise<void> }> {
  const [{ startEvents }, { createPoller }, { finalJobCleanup }] = await Promise.all([
    import('./events/start.js'),
    import('./jobs/poller.js'),
    import('./files/files-deps.js'),
  ]);
  const poller = createPoller({ client, jobs, log, onFinal: finalJobCleanup(config, log) });
  const events = startEvents({ events: config.events!, jobs, poller, log, onStep: stepReached(config.testKillAt) });
  return {
    async close() {
      await events.close();
      poller.close();
    },
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const cli: CliArgs = orExit(() => parseCli(argv));
  // Help and version need no configuration: they must work precisely when it is missing. stdout is fine here,
  // nothing speaks JSON-RPC on it.
  if (cli.help || cli.version) {
    const { helpText, packageVersion } = await import('./cli-help.js');
    process.stdout.write(cli.help ? helpText(cli.command) : `${packageVersion()}\n`);
    return;
  }
  // `install` writes a host's config; it needs no configuration (and may run on an old Node: node-gate.ts).
  if (cli.command === 'install' && cli.install) {
    const { runInstall } = await import('./install/cli.js');
    process.exit(runInstall(cli.install, { env: process.env }));
  }
  // `doctor` runs before the configuration is loaded: a doctor must run precisely when it is broken.
  if (cli.command === 'doctor') {
    const { runDoctor } = await import('./doctor.js');
    process.exit(await runDoctor({ argv, env: process.env }));
  }
  const config: Config = orExit(() => loadConfig(cli, process.env));
  const log = createLogger(config.logLevel);
  if (cli.command === 'sim') {
    const { runSimulatorCli } = await import('./sim/cli.js');
    const { SIM_CLI_FILE } = await import('./sim/sandbox.js');
    await runSimulatorCli({
      ...(cli.port !== undefined ? { port: cli.port } : {}),
      stateFile: join(config.sandboxDir, SIM_CLI_FILE),
      reset: cli.reset === true,
    });
    return;
  }
  if (cli.command === 'audit' && cli.audit) {
    // The one command that writes to stdout on purpose: the export is its output (no JSON-RPC here).
    const { runAuditExport } = await import('./audit/cli.js');
    process.exitCode = await runAuditExport(config, cli.audit, log);
    return;
  }
  if (cli.command === 'report' && cli.report) {
    // The report is this command's output (no JSON-RPC here).
    const { runReport } = await import('./report/cli.js');
    process.exitCode = await runReport(config, cli.report, log);
    return;
  }
  if (cli.command === 'events') {
    // The delivery log is this command's output (no JSON-RPC here).
    const { runEventsLog } = await import('./events/cli.js');
    process.exitCode = await runEventsLog(config, log);
    return;
  }
  if (cli.command === 'db' && cli.db) {
    // Operator output on stdout (what was migrated, the GRANT statements run); no JSON-RPC here.
    const { runDbCommand } = await import('./store/db-cli.js');
    try {
      process.exitCode = await runDbCommand(config, cli.db);
    } catch (err) {
      if (err instanceof ConfigurationError) throw err;
      // The database's refusal (not the owner, no such role, unreachable) is the answer: one line, no stack.
      say(redact(`genplat-mcp db: ${err instanceof Error ? err.message : String(err)}`));
      process.exitCode = 1;
    }
    return;
  }
  // A bad approval policy stops the server here, like any other setting (exit 2, one line per problem): running
  // without the approvals the operator asked for would let calls through that should wait.
  const served = config.approvalsFile
    ? await (await import('./approvals/load-policy.js')).withApprovalPolicy(config)
    : config;
  // Off unless OTEL_* asks (src/telemetry/traces-settings.ts): then the SDK is imported here, before any request.
  if (config.traces) await startTracing(config.traces).catch((err: unknown) => log.warn(tracesWords.notStarted(err)));
  if (cli.http) {
    const { serveHttp } = await import('./transports/http-main.js');
    await serveHttp(served, log);
  } else await serve(served, log);
  // Under npx/npm a SIGTERM to npm's pid never reaches us (src/parent-watch.ts): stop when npm is gone.
  if (startedByNpm(process.env)) {
    watchParent(() => {
      log.info('the npm process that started this server exited');
      process.kill(process.pid, 'SIGTERM');
    });
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigurationError) {
    for (const p of err.problems) say(`genplat-mcp: ${p}`);
    process.exit(2);
  }
  // An unusable state dir at start is a setting to fix, not a crash: one line with the path and the fix.
  if (err instanceof StateError) {
    say(`genplat-mcp: ${err.message} ${err.nextStep}`);
    process.exit(2);
  }
  // A store this code may not use as it is (a runtime role on an older schema, or a newer schema): the message
  // names what to run; a stack would bury it.
  if (err instanceof SchemaMigrationNeededError || err instanceof SchemaTooNewError) {
    say(redact(`genplat-mcp: ${err.message}`));
    process.exit(2);
  }
  say(redact(`genplat-mcp: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
  process.exit(1);
});
