#!/usr/bin/env node
/**
 * Real-hosts suite (issue 20 item 2): each host CLI in hosts/package.json runs headless in a fresh temp HOME,
 * configured (its own config files, its own auto-approval setting) to start our built server over stdio (the
 * entry written by `genplat-mcp install <host> --config <file> --trust --headless`), and to reach it over
 * Streamable HTTP with a bearer token (entry written by `genplat-mcp install <host> --http <url> --config <file>
 * --trust`, the token in the host's environment as GENPLAT_HTTP_TOKEN, never in its config). Each host's model is a stand-in on loopback
 * (`lib/model.mjs`, the provider API the host speaks) scripted by `lib/script.mjs`:
 *   list_avatars → create_talking_video (confirmation_required + token) → same + confirmation_token → wait_for_jobs
 * reading every tool result from the conversation the host sends back. The platform is a standalone simulator
 * per run (`genplat-mcp sim`), so the POSTs that reached it are counted from its request log.
 * Per host × transport it asserts: connected (our tools reached the model), every tool our server lists was
 * offered under the host's naming, the flow reached `completed`, exactly 1 POST /video/generate.
 * A run that fails for a reason outside our reach is listed in expected-failures.json (host/transport, the
 * error text it must show, why); it then does not fail the suite, and an entry that no longer fails is stale.
 *
 *   npm ci --prefix hosts && npm run build && node hosts/run.mjs [host ...] [--transport stdio|http] [--keep]
 * `--keep` keeps every run dir and dumps each request the stand-in model got (a failed run's dir is always kept).
 * Docs: docs/hosts-ci.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { host as claudeCode } from './clients/claude-code.mjs';
import { host as codex } from './clients/codex.mjs';
import { host as gemini } from './clients/gemini.mjs';
import { host as opencode } from './clients/opencode.mjs';
import { startModel } from './lib/model.mjs';
import { ENTRY, NODE, serverEnv, serverToolNames, startHttpServer, startSim, stop } from './lib/procs.mjs';
import { filesHolding, flowProblems, httpToolNames, runClient, takeModelRecord } from './lib/run-client.mjs';
import { DONE_TEXT } from './lib/script.mjs';

const HOSTS = [claudeCode, gemini, codex, opencode];
// A run is ~15-40 s (the simulator's demo timing finishes the video in 8-15 s); 150 s is a hang.
const RUN_TIMEOUT_MS = 150_000;
const CONCURRENCY = Number(process.env.HOSTS_CONCURRENCY ?? 4);
const PROMPT =
  'Use the genplat tools: list the avatars, make a talking video with the first one, confirm the quote, and wait until it completes.';

const args = process.argv.slice(2);
let onlyTransport;
const onlyHosts = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--transport') onlyTransport = args[++i];
  else if (!args[i].startsWith('--')) onlyHosts.push(args[i]);
}
const keep = args.includes('--keep');
const chosen = onlyHosts.length ? HOSTS.filter((h) => onlyHosts.includes(h.id)) : HOSTS;
if (onlyHosts.some((id) => !HOSTS.some((h) => h.id === id))) {
  console.error(`unknown host; known: ${HOSTS.map((h) => h.id).join(', ')}`);
  process.exit(2);
}
if (onlyTransport !== undefined && !['stdio', 'http'].includes(onlyTransport)) {
  console.error('--transport takes stdio or http');
  process.exit(2);
}
readFileSync(ENTRY); // fails early, naming the path, when the server is not built
// The stand-in's reader against the result shapes the pinned hosts send (lib/script.test.mjs), before any host runs.
const selfTest = spawnSync(process.execPath, ['--test', join(import.meta.dirname, 'lib/script.test.mjs')], {
  encoding: 'utf8',
});
if (selfTest.status !== 0) {
  console.log(selfTest.stdout, selfTest.stderr);
  console.log("hosts: the stand-in model's own test failed (hosts/lib/script.test.mjs)");
  process.exit(1);
}
const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'expected-failures.json'), 'utf8'));
const modules = join(import.meta.dirname, 'node_modules');
/** The installed version, or undefined when npm skipped the package (a platform package on another platform). */
function version(pkg) {
  try {
    return JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const work = mkdtempSync(join(tmpdir(), 'genplat-hosts-'));
const started = performance.now();

/** One host × transport, in its own temp HOME, simulator, stand-in model and (HTTP) server. */
async function runOne(h, transport) {
  const dir = join(work, `${h.id}-${transport}`);
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  for (const d of [home, cwd]) mkdirSync(d, { recursive: true });
  const r = { host: h.id, name: h.name, version: version(h.pkg), transport, dir };
  const t0 = performance.now();
  if (!r.version) {
    r.error = `${h.pkg} is not installed (run npm ci --prefix hosts; on another platform than npm installed for, it is skipped)`;
    r.seconds = 0;
    return r;
  }
  let sim;
  let model;
  let http;
  try {
    sim = await startSim(join(dir, 'sim'));
    model = await startModel({
      label: `${h.id} ${transport}`,
      logFile: join(dir, 'model.log'),
      dumpDir: keep ? join(dir, 'requests') : undefined,
    });
    let server;
    if (transport === 'http') {
      const env = serverEnv(sim, join(dir, 'state'));
      const token = `hosts-suite-${h.id}-0123456789abcdef`;
      http = await startHttpServer(env, join(dir, 'server.log'), token);
      server = { http: { url: http.url, token, home } };
    } else {
      // `genplat-mcp install <host> --config <file> --trust --headless` writes the entry (lib/procs.mjs
      // genplatInstall): absolute paths to the pinned Node 22 it runs on and to the built entry, the simulator's
      // base URL and key, GENPLAT_ELICITATION=off. Our state then lives under the run's HOME (its default).
      server = { stdio: { home, baseUrl: sim.baseUrl, apiKey: sim.apiKey } };
    }
    // The suite's own settings (the stand-in model) first, then our server added to them by installServer:
    // the installer's entry (stdio or HTTP) plus the host settings it does not write.
    h.writeModelConfig(home, model.origin);
    r.install = h.installServer(home, server, { cwd });
    // The installer had the token in its environment: no file the host reads may hold it (only a reference).
    if (server.http) {
      const leaks = filesHolding(home, server.http.token);
      if (leaks.length) throw new Error(`the bearer token is written literally in ${leaks.join(', ')}`);
    }
    const cmd = h.command({ prompt: PROMPT, model, home, server });
    const out = await runClient(join(modules, h.bin), cmd.args, {
      cwd,
      timeoutMs: RUN_TIMEOUT_MS,
      env: {
        PATH: `${dirname(NODE)}:/usr/local/bin:/usr/bin:/bin`,
        HOME: home,
        TMPDIR: join(dir, 'tmp'),
        LANG: 'C.UTF-8',
        CI: '1',
        NO_COLOR: '1',
        // The one place the token lives for the host: its environment, which the installed entry references.
        ...(server.http ? { GENPLAT_HTTP_TOKEN: server.http.token } : {}),
        ...cmd.env,
      },
      log: join(dir, 'host.log'),
    });
    const rec = model.record;
    r.exit = out.code;
    r.timedOut = out.timedOut;
    r.hostOutputTail = out.text.slice(-1500);
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
function problemsOf(r, toolNames) {
  if (r.error) return [`harness: ${r.error.split('\n')[0]}`];
  // A tool is listed only on the transport it works on (src/tool-visibility.ts).
  const listed = r.transport === 'http' ? httpToolNames(toolNames) : toolNames;
  const p = flowProblems(r, r.hostDef.toolName, listed);
  if (r.timedOut) p.push(`host timed out after ${RUN_TIMEOUT_MS / 1000} s`);
  else if (r.exit !== 0) p.push(`host exited ${r.exit}`);
  else if (r.completed && !r.hostOutputTail.includes(DONE_TEXT))
    p.push("the model's final answer is not in the host's output");
  return p;
}

const cells = chosen.flatMap((h) =>
  h.transports.filter((t) => !onlyTransport || t === onlyTransport).map((t) => [h, t]),
);
const sim0 = await startSim(join(work, 'list-sim'));
const toolNames = await serverToolNames(serverEnv(sim0, join(work, 'list-state'))).finally(() => stop(sim0.child));

const results = [];
const queue = [...cells];
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, cells.length) }, async () => {
    while (queue.length) {
      const [h, t] = queue.shift();
      const r = await runOne(h, t);
      r.hostDef = h;
      results.push(r);
      console.error(`[hosts] ${h.id} ${t}: ${r.outcome ?? r.error?.split('\n')[0] ?? 'no outcome'} (${r.seconds} s)`);
    }
  }),
);
results.sort(
  (a, b) =>
    cells.findIndex(([h, t]) => h.id === a.host && t === a.transport) -
    cells.findIndex(([h, t]) => h.id === b.host && t === b.transport),
);

const entries = Object.entries(expected).filter(([k]) => !k.startsWith('$'));
for (const r of results) {
  r.problems = problemsOf(r, toolNames);
  const key = `${r.host}/${r.transport}`;
  const entry = entries.find(([k]) => k === key)?.[1];
  if (entry && r.problems.length > 0) {
    const seen = `${r.hostOutputTail ?? ''}\n${r.error ?? ''}\n${r.problems.join('\n')}`;
    if (seen.includes(entry.match)) r.expectedFailure = entry;
    else r.problems.push(`failed, but not as expected-failures.json says (no "${entry.match}")`);
  } else if (entry) r.problems.push('stale expected-failures.json entry: this run passed (remove it)');
  r.passed = r.problems.length === 0 || Boolean(r.expectedFailure);
}

const yes = (v) => (v ? 'yes' : 'no');
const table = [
  '| host | version | transport | connected | tools | paid flow | POSTs | seconds | result |',
  '|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.name} | ${r.version} | ${r.transport} | ${yes(r.connected)} | ${r.toolsText ?? '-'} | ${r.completed ? 'completed' : (r.outcome ?? 'no')} | ${r.posts ?? '-'} | ${r.seconds} | ${r.problems.length === 0 ? 'pass' : r.expectedFailure ? 'expected failure' : 'FAIL'} |`,
  ),
].join('\n');
const total = Math.round((performance.now() - started) / 100) / 10;
console.log(table);
for (const r of results.filter((x) => x.problems.length > 0)) {
  const tag = r.expectedFailure ? 'expected failure' : 'FAILED';
  console.log(`\n${r.host}/${r.transport} ${tag}:\n  ${r.problems.join('\n  ')}`);
  if (r.expectedFailure) console.log(`  reason: ${r.expectedFailure.reason}`);
  console.log(`  host output (tail):\n    ${(r.hostOutputTail ?? '').trim().split('\n').slice(-12).join('\n    ')}`);
  console.log(`  logs: ${r.dir}`);
}
const failed = results.filter((r) => !r.passed);
console.log(
  `\nhosts: ${results.length - failed.length} of ${results.length} runs passed or failed as expected, ${failed.length} failed (${total} s)`,
);
writeFileSync(
  join(import.meta.dirname, 'results.json'),
  `${JSON.stringify({ node: process.version, seconds: total, toolNames, results: results.map(({ hostDef, ...r }) => r) }, null, 2)}\n`,
);
if (!keep && failed.length === 0) rmSync(work, { recursive: true, force: true });
else console.log(`(run dirs kept in ${work})`);
process.exitCode = failed.length > 0 ? 1 : 0;
