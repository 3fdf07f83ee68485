/**
 * `genplat-mcp doctor [--sandbox]`: checks what a first run needs — configuration, state dir, base URL and
 * key — and says what is wrong and how to fix it. One free read (GET /video/avatars) proves the URL and key;
 * nothing billable is ever sent. The key is never printed: only "set, N characters".
 * Exit code: 0 when every check passed, 1 otherwise (the bin passes it to process.exit).
 */
import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createPlatformClient } from './client/index.js';
import { type CliArgs, type Config, loadConfig, parseCli } from './config.js';
import {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  ConnectionError,
  GenplatError,
  MalformedResponseError,
  NotFoundError,
  PermissionDeniedError,
  TimeoutError,
} from './errors.js';
import { createLogger, redact } from './log.js';
import { nodeVersionProblem } from './node-version.js';
import { type Simulator, startSimulator } from './sim/index.js';
import { openConfiguredStore, SCHEMA_VERSION, type StoreRole } from './store/index.js';
import { spoolReport } from './store/spool-journal.js';

export interface DoctorOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Where the report goes (default stdout: doctor is run by a person, not by an MCP host). */
  out?: (line: string) => void;
  /** Per-request timeout of the key check. 15 s: a healthy platform answers a list in well under a second. */
  timeoutMs?: number;
}

type Mark = 'ok' | 'fail' | 'info';
const SYMBOL: Record<Mark, string> = { ok: '✓', fail: '✗', info: '•' };

/** What a failed platform read means for someone setting the server up. */
function explain(err: unknown): { problem: string; fix: string } {
  if (err instanceof AuthenticationError) {
    return {
      problem: 'the platform refused the key (401 not authenticated)',
      fix: 'Set GENPLAT_API_KEY to an active key from your platform dashboard (no quotes or spaces around it).',
    };
  }
  if (err instanceof PermissionDeniedError) {
    return {
      problem: 'the key works but the account may not list avatars (403)',
      fix: "Check the account's plan with the platform; other tools may still work.",
    };
  }
  if (err instanceof NotFoundError) {
    return {
      problem: 'GET /video/avatars answered 404: the base URL path is probably wrong',
      fix: 'GENPLAT_BASE_URL must include the platform prefix (the part before /video/avatars in the API docs).',
    };
  }
  if (err instanceof MalformedResponseError) {
    return {
      problem: 'the base URL answered, but not like the platform API (not its JSON)',
      fix: 'Check GENPLAT_BASE_URL: it may point at a web page, a proxy or the wrong prefix.',
    };
  }
  if (err instanceof ConnectionError || err instanceof TimeoutError) {
    return {
      problem: `the base URL is unreachable: ${err.message}`,
      fix: 'Check GENPLAT_BASE_URL (host name, https), DNS, proxy and firewall settings, then run doctor again.',
    };
  }
  if (err instanceof ApiError) return { problem: err.message, fix: err.nextStep };
  return { problem: `unexpected error: ${err instanceof Error ? err.message : String(err)}`, fix: 'Run doctor again.' };
}

/** Runs every check it can and returns the exit code. Never throws for a failed check. */
export async function runDoctor(opts: DoctorOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  let failed = 0;
  const line = (mark: Mark, text: string, fix?: string) => {
    if (mark === 'fail') failed++;
    // Belt and braces: every line goes through the process-wide redaction (the key is registered below).
    out(redact(`${SYMBOL[mark]} ${text}`));
    if (fix) out(redact(`    fix: ${fix}`));
  };

  out('genplat-mcp doctor');
  const nodeProblem = nodeVersionProblem(process.version);
  if (nodeProblem)
    line(
      'fail',
      `Node ${process.versions.node} at ${process.execPath} is too old`,
      `${nodeProblem.replace(/^genplat-mcp needs/, 'The server needs')} \`genplat-mcp install <host>\` writes an absolute path to a new enough node into a host's config.`,
    );
  else line('ok', `Node ${process.versions.node} at ${process.execPath}`);

  let config: Config;
  let cli: CliArgs;
  try {
    cli = parseCli(opts.argv.filter((a) => a !== 'doctor'));
    config = loadConfig(cli, opts.env);
  } catch (err) {
    const problems =
      err instanceof ConfigurationError ? err.problems : [err instanceof Error ? err.message : String(err)];
    for (const p of problems) line('fail', `config: ${p}`);
    line('info', 'state dir, base URL and key checks skipped until the configuration loads');
    out('Fix the lines marked ✗ (see docs/configuration.md), then run doctor again.');
    return 1;
  }
  line('ok', 'configuration loads');
  // Loading validated every entry (a bad one fails above, naming the entry and field).
  if (config.peopleFile) line('ok', `GENPLAT_PEOPLE: ${config.people.size} people from ${config.peopleFile}`);
  if (config.budgets && config.budgetsFile) {
    const b = config.budgets;
    line(
      'ok',
      `GENPLAT_BUDGETS: ${Object.keys(b.teams).length} team(s), ${Object.keys(b.people).length} person override(s) from ${config.budgetsFile}`,
    );
  }
  await checkApprovals(config, line);
  await checkEvents(config, line);
  // The key's value never reaches output; its length helps spot a truncated paste.
  const key = config.apiKey;
  if (key) {
    createLogger('error', () => {}).addSecret(key);
    line('info', `GENPLAT_API_KEY: set, ${key.length} characters`);
  } else if (config.sandbox) line('info', 'GENPLAT_API_KEY: not needed in --sandbox');
  line(
    'info',
    `confirmation ${config.confirm.mode === 'above' ? `above ${config.confirm.credits} credits` : config.confirm.mode}; ceilings ${config.maxCreditsPerCall} per call, ${config.maxCreditsPerDay} per day${config.maxCreditsPerWeek ? `, ${config.maxCreditsPerWeek} per week` : ''}${config.maxCreditsPerMonth ? `, ${config.maxCreditsPerMonth} per month` : ''}`,
  );
  if (cli.http) await checkHttp(config, line);
  else {
    line('info', 'mode: stdio (add --http to check the HTTP mode)');
    if (config.http.tokens.length > 0)
      line('info', `GENPLAT_HTTP_TOKEN: ${config.http.tokens.length} token(s) set (used with --http only)`);
  }

  await checkStateDir(config.stateDir, line);
  await checkStore(config, line);
  await checkSpoolWritable(join(config.stateDir, 'spool'), line);
  checkSpool(join(config.stateDir, 'spool'), line);

  let sim: Simulator | undefined;
  try {
    let baseUrl = config.baseUrl;
    let apiKey = key;
    if (config.sandbox) {
      sim = await startSimulator({ timing: 'test', vendors: config.vendors });
      baseUrl = sim.baseUrl;
      apiKey = sim.apiKey;
      line('info', `sandbox: checking against the built-in simulator at ${sim.baseUrl}`);
    }
    if (baseUrl && apiKey) await checkPlatform(baseUrl, apiKey, config, opts.timeoutMs ?? 15_000, line);
  } finally {
    await sim?.close();
  }

  out(failed === 0 ? 'All checks passed.' : `${failed} problem(s) found.`);
  return failed === 0 ? 0 : 1;
}

type Line = (mark: Mark, text: string, fix?: string) => void;

/** GENPLAT_APPROVALS: the server refuses to start with a file it cannot read or validate; say why, line by line. */
async function checkApprovals(config: Config, line: Line): Promise<void> {
  if (!config.approvalsFile) {
    line('info', 'approvals: no GENPLAT_APPROVALS, no call waits for an approval');
    return;
  }
  const { loadApprovalPolicy } = await import('./approvals/load-policy.js');
  try {
    const policy = await loadApprovalPolicy(config.approvalsFile);
    const { policyPeopleProblems } = await import('./approvals/people-check.js');
    const { errors, warnings } = policyPeopleProblems(policy, config.people);
    for (const e of errors) line('fail', `GENPLAT_APPROVALS (${config.approvalsFile}): ${e}`);
    for (const w of warnings) line('info', `approvals: ${w}`);
    if (errors.length === 0) line('ok', `approvals: ${policy.rules.length} rule(s) from ${config.approvalsFile}`);
    else line('info', 'the server refuses to start until every group the policy names has members in GENPLAT_PEOPLE');
  } catch (err) {
    const problems =
      err instanceof ConfigurationError ? err.problems : [err instanceof Error ? err.message : String(err)];
    for (const p of problems) line('fail', p);
    line(
      'info',
      'the server refuses to start until the approval policy loads',
      'See docs/approvals.md for the format.',
    );
  }
}

/** `--http`: the server refuses to start without a token or OAuth, and cannot serve on a port already taken. */
async function checkHttp(config: Config, line: Line): Promise<void> {
  const { host, port, tokens } = config.http;
  if (tokens.length === 0 && !config.oauth && !config.slack) {
    line(
      'fail',
      'HTTP mode: no GENPLAT_HTTP_TOKEN, no OAuth (GENPLAT_OAUTH_ISSUER) and no Slack auth (GENPLAT_SLACK_SIGNING_SECRETS): the server refuses to start',
      "Set GENPLAT_HTTP_TOKEN to a random value of 16+ characters (node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\"), one per caller, comma-separated; or configure OAuth (docs/security.md).",
    );
  }
  if (tokens.length > 0) line('ok', `HTTP mode: ${tokens.length} bearer token(s) set`);
  if (config.oauth) line('ok', `HTTP mode: OAuth sign-in from ${config.oauth.issuer} for ${config.oauth.resource}`);
  if (config.slack) {
    line(
      'ok',
      `HTTP mode: Slack identity auth, ${config.slack.signingSecrets.length} signing secret(s), workspaces ${config.slack.teams.join(', ')}`,
    );
  }
  const { owners, clientIds } = config.delegation;
  if (owners.length + clientIds.length > 0) {
    line('ok', `HTTP mode: delegating bots ${[...owners, ...clientIds.map((c) => `client:${c}`)].join(', ')}`);
  }
  const problem = await portProblem(host, port);
  if (problem)
    line(
      'fail',
      `HTTP mode: cannot listen on ${host}:${port} (${problem})`,
      problem === 'EADDRINUSE'
        ? `Another process holds the port (\`ss -ltnp | grep :${port}\` or \`lsof -i :${port}\` names it): stop it, or pick another with --port / GENPLAT_HTTP_PORT.`
        : 'Pick another --port / GENPLAT_HTTP_PORT (below 1024 needs privileges) or --host / GENPLAT_HTTP_HOST.',
    );
  else line('ok', `HTTP mode: ${host}:${port} is free`);
}

/** Listens on `host:port` for a moment: the error code when the server could not, else undefined. */
function portProblem(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/**
 * Creates `dir` if needed and writes and removes a probe file in it; throws the error that stopped it. The probe
 * is not named `.jsonl`, so no server ever takes it for a spool journal.
 */
async function probeWritable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await access(dir, constants.W_OK);
  const probe = join(dir, `.doctor-${randomBytes(4).toString('hex')}`);
  await writeFile(probe, 'ok');
  await rm(probe, { force: true });
}

async function checkStateDir(dir: string, line: Line): Promise<void> {
  try {
    // The server creates it on start anyway; creating it here is the check that it can be.
    await probeWritable(dir);
  } catch (err) {
    line(
      'fail',
      `state dir ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      'Set GENPLAT_STATE_DIR (or --state-dir) to a folder this user can write, or fix its permissions.',
    );
    return;
  }
  line('ok', `state dir ${dir} is writable`);
}

/** Events to bots (docs/events.md): the endpoints configured and, per endpoint, what was delivered or waits. */
async function checkEvents(config: Config, line: Line): Promise<void> {
  const { eventsWords: W } = await import('./events/wording.js');
  const { shownEndpoint } = await import('./events/config.js');
  const endpoints = config.events?.endpoints ?? [];
  if (endpoints.length === 0) return line('info', W.doctorOff);
  try {
    const store = await openConfiguredStore(config, createLogger('error'));
    try {
      const summary = await store.deliverySummary();
      if (summary.length === 0) line('ok', W.doctorNoDeliveries(endpoints.length));
      for (const s of summary) {
        const oldest = s.oldestDue !== undefined ? new Date(s.oldestDue).toISOString() : undefined;
        line(
          s.dead > 0 ? 'info' : 'ok',
          W.doctorEndpoint(shownEndpoint(s.endpoint), s.due, s.delivered, s.dead, oldest, s.lastError),
        );
      }
    } finally {
      await store.close();
    }
  } catch {
    // The store check says why it does not open.
  }
}

/**
 * The job store: which backend, its schema version, and for PostgreSQL that it answers (the password never
 * appears: `description` has none, and openConfiguredStore registers it for redaction).
 */
async function checkStore(config: Config, line: Line): Promise<void> {
  const where = config.databaseUrl ? 'the PostgreSQL job store (GENPLAT_DATABASE_URL)' : 'the SQLite job store';
  try {
    const store = await openConfiguredStore(config, createLogger('error'));
    try {
      const version = await store.schemaVersion();
      const recent = await store.list({ limit: 1000 });
      const connected = config.databaseUrl ? '; connected' : '';
      line(
        'ok',
        `job store: ${store.description} (schema ${version}, this genplat-mcp writes ${SCHEMA_VERSION}${connected}); ${recent.length} recent job(s)`,
      );
      const role = await store.role?.();
      if (role) roleLine(role, line);
    } finally {
      await store.close();
    }
  } catch (err) {
    line(
      'fail',
      redact(`${where} does not open: ${err instanceof Error ? err.message : String(err)}`),
      err instanceof GenplatError && err.nextStep
        ? err.nextStep
        : config.databaseUrl
          ? 'Check that the PostgreSQL server is reachable and GENPLAT_DATABASE_URL (host, port, user, database, password) is right.'
          : 'Check the state dir (GENPLAT_STATE_DIR) and genplat.db in it.',
    );
  }
}

/**
 * The spool (src/store/spool.ts): POST answers still waiting for the store (a running server replays them), and
 * dead-letter files — answers the store refused, whose job ids are not in the store until the operator acts.
 */
function checkSpool(dir: string, line: Line): void {
  const { waiting, dead } = spoolReport(dir);
  if (waiting > 0)
    line(
      'info',
      `spool: ${waiting} POST answer(s) in ${dir} not yet in the store (a running server replays them at start-up and every 5 s)`,
    );
  for (const d of dead)
    line(
      'fail',
      `spool: dead-letter file ${d.file} holds ${d.lines} POST answer(s) the store refused (their job ids are not in the store)`,
      'Each line names the ledger id, handle and request id, and why the store refused it (the server log says the same). Fix the cause, then rename the file to end in .jsonl: the next server start replays it (an answer the store already has changes nothing). Or remove it once the jobs are accounted for.',
    );
}

/**
 * Can the spool be written? When it cannot (a full disk, a spool path that is not a folder) and the store is
 * unreachable too, a paid job's ids live only in the server's memory (src/store/spool.ts says so to the agent
 * and in the log); doctor cannot see another process's memory, so it reports the condition that causes it.
 */
async function checkSpoolWritable(dir: string, line: Line): Promise<void> {
  try {
    await probeWritable(dir);
  } catch (err) {
    line(
      'fail',
      `spool: ${dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)}): a paid job's ids that the store cannot take at that moment would be held only in the server's memory, and lost on a restart`,
      `Free space on the state dir's volume, or make ${dir} a folder this user can write. The server log names every such job ("NOT RECORDED ANYWHERE"), with its platform job id.`,
    );
  }
}

/** Which database role the PostgreSQL store has (docs/storage.md: a fleet should run as a runtime role). */
function roleLine(role: StoreRole, line: Line): void {
  const regrant = `Run \`genplat-mcp db grant ${role.user}\` with GENPLAT_DATABASE_URL set to the migration role (docs/storage.md).`;
  if (role.kind === 'owner') {
    const su = role.superuser ? 'superuser; ' : '';
    line('info', `store role: owner (${su}can migrate; can alter the audit — use a separate runtime role for a fleet)`);
  } else if (role.kind === 'runtime') {
    line('ok', 'store role: runtime (least privilege: cannot alter the audit or rewrite spend)');
  } else if (role.kind === 'limited') {
    line(
      'fail',
      `store role: runtime "${role.user}" lacks ${role.missing.join(', ')} (the server's writes fail)`,
      regrant,
    );
  } else {
    line('fail', `store role: runtime "${role.user}" holds more than it needs: ${role.extra.join(', ')}`, regrant);
  }
}

async function checkPlatform(baseUrl: string, apiKey: string, config: Config, timeoutMs: number, line: Line) {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') line('ok', `base URL ${baseUrl} uses https`);
  else line('info', `base URL ${baseUrl} is plain http on loopback (fine for a local simulator or proxy only)`);
  const client = createPlatformClient({ baseUrl, apiKey, vendors: config.vendors, timeoutMs, maxRetries: 0 });
  try {
    const { data, requestId } = await client.avatars.list();
    line(
      'ok',
      `the key works: GET /video/avatars listed ${data.length} avatar(s) (free read, request ${requestId ?? '-'})`,
    );
  } catch (err) {
    const { problem, fix } = explain(err);
    line('fail', problem, fix);
  } finally {
    await client.close();
  }
}
