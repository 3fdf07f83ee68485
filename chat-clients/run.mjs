#!/usr/bin/env node
/**
 * Chat clients in CI (issue 29 item 6): a chat client people run as a bot (OpenClaw), installed from the npm registry
 * with the Node it requires (also from the registry), reaches our built server over Streamable HTTP with a bearer
 * token and is driven through its own agent loop, headless, by the stand-in model of hosts/ (`hosts/lib/model.mjs`,
 * scripted by `hosts/lib/script.mjs`):
 *   list_avatars → create_talking_video (confirmation_required + token) → same + confirmation_token → wait_for_jobs
 * Per client it asserts: our tools reached the model, every tool our server lists was offered under the client's
 * naming, the flow reached `completed` in that order, the client exited 0 with the model's final text, exactly 1
 * POST /video/generate on a standalone simulator. Fresh HOME per run; the token only in the client's environment.
 * No network but loopback: when `unshare` and `ip` work (root or user namespaces), the whole suite re-runs itself in
 * a new network namespace whose only interface is `lo` (the report says whether it did).
 *
 *   npm ci --prefix chat-clients && npm ci --prefix chat-clients/openclaw && npm run build
 *   node chat-clients/run.mjs [client ...] [--keep]
 * `--keep` keeps the run dirs and dumps each request the stand-in model got (a failed run's dir is always kept).
 * Docs: docs/hosts-ci.md "Chat clients in CI".
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startModel } from '../hosts/lib/model.mjs';
import { ENTRY, serverEnv, serverToolNames, startHttpServer, startSim, stop } from '../hosts/lib/procs.mjs';
import { filesHolding, flowProblems, httpToolNames, runClient, takeModelRecord } from '../hosts/lib/run-client.mjs';
import { DONE_TEXT } from '../hosts/lib/script.mjs';
import { client as openclaw } from './clients/openclaw.mjs';

const CLIENTS = [openclaw];
// OpenClaw's start-up (plugins, its SQLite state, tool catalog) takes 20-60 s on a loaded box, the flow ~25 s.
const RUN_TIMEOUT_MS = 300_000;
const PROMPT =
  'Use the genplat tools: list the avatars, make a talking video with the first one, confirm the quote, and wait until it completes.';
const HERE = import.meta.dirname;
/** The Node 24 the chat clients need (chat-clients/package.json pins `node`); the suite itself runs on any Node ≥ 22. */
const NODE24 = join(HERE, 'node_modules/node/bin/node');

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const only = args.filter((a) => !a.startsWith('--'));
if (only.some((id) => !CLIENTS.some((c) => c.id === id))) {
  console.error(`unknown client; known: ${CLIENTS.map((c) => c.id).join(', ')}`);
  process.exit(2);
}

// Loopback only: re-run this script inside a new network namespace with `lo` up, when this machine allows it.
const inNetns = process.env.GENPLAT_CHAT_CLIENTS_NETNS === '1';
if (!inNetns && process.env.GENPLAT_CHAT_CLIENTS_NETNS !== 'off') {
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.status === 0) {
    const child = spawn(
      'unshare',
      ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, import.meta.filename, ...args],
      { stdio: 'inherit', env: { ...process.env, GENPLAT_CHAT_CLIENTS_NETNS: '1' } },
    );
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
    await new Promise(() => {});
  }
  console.error(
    `[chat-clients] not isolated from the network (unshare -rn + ip link set lo up failed: ${(probe.stderr || probe.error?.message || '').trim().split('\n')[0]})`,
  );
}
const network = inNetns ? 'loopback only (own network namespace)' : 'not isolated';

readFileSync(ENTRY); // fails early, naming the path, when the server is not built
const selfTest = spawnSync(process.execPath, ['--test', join(HERE, '../hosts/lib/script.test.mjs')], {
  encoding: 'utf8',
});
if (selfTest.status !== 0) {
  console.log(selfTest.stdout, selfTest.stderr);
  console.log("chat-clients: the stand-in model's own test failed (hosts/lib/script.test.mjs)");
  process.exit(1);
}

/** The installed version of a client's package, or undefined when it is not installed. */
function version(c) {
  try {
    return JSON.parse(readFileSync(join(HERE, c.dir, 'node_modules', c.pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const work = mkdtempSync(join(tmpdir(), 'genplat-chat-clients-'));
const started = performance.now();

/** One client over HTTP, in its own temp HOME, simulator, stand-in model and server. */
async function runOne(c) {
  const dir = join(work, c.id);
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  const tmp = join(dir, 'tmp');
  for (const d of [home, cwd, tmp]) mkdirSync(d, { recursive: true });
  const r = { client: c.id, name: c.name, version: version(c), transport: 'http', network, dir };
  const t0 = performance.now();
  if (!r.version || !existsSync(NODE24)) {
    r.error = `${c.pkg} or the Node 24 it runs on is not installed (npm ci --prefix chat-clients && npm ci --prefix chat-clients/${c.dir})`;
    r.seconds = 0;
    return r;
  }
  let sim;
  let model;
  let http;
  try {
    sim = await startSim(join(dir, 'sim'));
    model = await startModel({
      label: `${c.id} http`,
      logFile: join(dir, 'model.log'),
      dumpDir: keep ? join(dir, 'requests') : undefined,
    });
    const token = `chat-clients-${c.id}-0123456789abcdef`;
    // The server's default consent (GENPLAT_ELICITATION unset, unlike hosts/): OpenClaw's MCP client declares no
    // elicitation, so the server itself answers a paid call with a confirmation token.
    const { GENPLAT_ELICITATION: _default, ...serverDefaults } = serverEnv(sim, join(dir, 'state'));
    http = await startHttpServer(serverDefaults, join(dir, 'server.log'), token);
    const env = {
      PATH: `${dirname(NODE24)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: tmp,
      LANG: 'C.UTF-8',
      CI: '1',
      NO_COLOR: '1',
      // The one place the token lives for the client: its environment, which the saved entry references.
      GENPLAT_HTTP_TOKEN: token,
    };
    c.writeModelConfig(home, model.origin);
    const t1 = performance.now();
    r.install = c.installServer(home, { url: http.url }, { node: NODE24, env });
    r.installSeconds = Math.round((performance.now() - t1) / 100) / 10;
    const leaks = filesHolding(home, token);
    if (leaks.length) throw new Error(`the bearer token is written literally in ${leaks.join(', ')}`);
    const cmd = c.command({ prompt: PROMPT });
    const t2 = performance.now();
    const out = await runClient(NODE24, cmd.args, {
      cwd,
      env: { ...env, ...cmd.env },
      log: join(dir, 'client.log'),
      timeoutMs: RUN_TIMEOUT_MS,
    });
    r.runSeconds = Math.round((performance.now() - t2) / 100) / 10;
    const rec = model.record;
    r.exit = out.code;
    r.timedOut = out.timedOut;
    r.envelope = c.readOutput(out.stdout);
    r.outputTail = `${out.stdout.slice(-1000)}\n${out.stderr.slice(-1000)}`;
    takeModelRecord(r, rec, sim);
  } catch (err) {
    r.error = String(err?.stack ?? err).slice(0, 2000);
  } finally {
    await stop(http?.child);
    await stop(sim?.child);
    await model?.close();
    r.seconds = Math.round((performance.now() - t0) / 100) / 10;
  }
  return r;
}

/** What failed in a run, as text (empty = passed). */
function problemsOf(r, c, toolNames) {
  if (r.error) return [`harness: ${r.error.split('\n')[0]}`];
  // Over HTTP: the HTTP-only tools instead of the stdio-only ones (src/tool-visibility.ts).
  const p = flowProblems(r, c.toolName, httpToolNames(toolNames));
  if (r.timedOut) p.push(`client timed out after ${RUN_TIMEOUT_MS / 1000} s`);
  else if (r.exit !== 0) p.push(`client exited ${r.exit}`);
  else if (r.completed && r.envelope?.final !== DONE_TEXT)
    p.push(`the model's final answer is not the client's result (${JSON.stringify(r.envelope?.final)?.slice(0, 200)})`);
  return p;
}

const chosen = only.length ? CLIENTS.filter((c) => only.includes(c.id)) : CLIENTS;
const sim0 = await startSim(join(work, 'list-sim'));
const toolNames = await serverToolNames(serverEnv(sim0, join(work, 'list-state'))).finally(() => stop(sim0.child));

const results = [];
for (const c of chosen) {
  const r = await runOne(c);
  r.problems = problemsOf(r, c, toolNames);
  r.passed = r.problems.length === 0;
  results.push(r);
  console.error(`[chat-clients] ${c.id}: ${r.outcome ?? r.error?.split('\n')[0] ?? 'no outcome'} (${r.seconds} s)`);
}

const yes = (v) => (v ? 'yes' : 'no');
console.log(
  [
    '| client | version | transport | connected | tools | paid flow | POSTs | network | seconds (set / run / all) | result |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.version ?? '-'} | ${r.transport} | ${yes(r.connected)} | ${r.toolsText ?? '-'} | ${r.completed ? 'completed' : (r.outcome ?? 'no')} | ${r.posts ?? '-'} | ${r.network} | ${r.installSeconds ?? '-'} / ${r.runSeconds ?? '-'} / ${r.seconds} | ${r.passed ? 'pass' : 'FAIL'} |`,
    ),
  ].join('\n'),
);
for (const r of results.filter((x) => !x.passed)) {
  console.log(`\n${r.client} FAILED:\n  ${r.problems.join('\n  ')}`);
  console.log(`  output (tail):\n    ${(r.outputTail ?? '').trim().split('\n').slice(-12).join('\n    ')}`);
  console.log(`  logs: ${r.dir}`);
}
const failed = results.filter((r) => !r.passed);
const total = Math.round((performance.now() - started) / 100) / 10;
console.log(`\nchat-clients: ${results.length - failed.length} of ${results.length} runs passed (${total} s)`);
writeFileSync(
  join(HERE, 'results.json'),
  `${JSON.stringify({ node: process.version, seconds: total, network, toolNames, results }, null, 2)}\n`,
);
if (!keep && failed.length === 0) rmSync(work, { recursive: true, force: true });
else console.log(`(run dirs kept in ${work})`);
process.exitCode = failed.length > 0 ? 1 : 0;
