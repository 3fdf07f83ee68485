/**
 * What hosts/run.mjs and chat-clients/run.mjs share around one client run: the client's process (its own process
 * group, a log file, a deadline), the check that no file under its HOME holds the bearer token, and the paid
 * flow's checks on what the stand-in model recorded.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` whose bytes contain `secret`. */
export function filesHolding(dir, secret) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => readFileSync(f).includes(secret));
}

/**
 * Runs a client to its end or `timeoutMs`; resolves `{ code, stdout, stderr, text (both, interleaved), timedOut }`.
 * Detached: the client leads a process group, and the group (the client and what it started, e.g. a stdio server
 * it did not stop) is killed when it exits or hangs.
 */
export function runClient(bin, argv, { cwd, env, log, timeoutMs }) {
  if (env.TMPDIR) mkdirSync(env.TMPDIR, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(bin, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const file = createWriteStream(log);
    const out = { stdout: '', stderr: '', text: '' };
    let timedOut = false;
    const take = (stream) => (c) => {
      out[stream] += c;
      out.text += c;
      file.write(c);
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const done = (code, extra = '') => {
      clearTimeout(timer);
      killGroup();
      file.end();
      resolve({ code, ...out, text: out.text + extra, timedOut });
    };
    child.on('error', (err) => done(null, `\nspawn error: ${err.message}`));
    child.on('close', (code) => done(code));
  });
}

/**
 * The paid flow's checks on a run `r` (`offered`, `calls`, `outcome`, `finalText` from the stand-in's record,
 * `posts` from the simulator): our tools offered under `toolName(<tool>)`, all of `toolNames`, list → quote →
 * confirmed call → waits in that order to `completed`, exactly 1 POST. Sets `r.connected`, `r.toolsOk`,
 * `r.toolsText`, `r.completed`; returns the problems as text (the caller adds its client's exit checks).
 */
/**
 * The tools an HTTP server lists, from the stdio list (what serverToolNames reads) and the snapshot's `only`
 * (test/contract/__snapshots__/tools-list.json): a tool is listed only on the transport it works on.
 */
export function httpToolNames(stdioNames) {
  const snap = JSON.parse(
    readFileSync(new URL('../../test/contract/__snapshots__/tools-list.json', import.meta.url), 'utf8'),
  );
  const only = new Map(snap.filter((t) => t.only).map((t) => [t.name, t.only]));
  const httpOnly = [...only].filter(([, o]) => o === 'http').map(([n]) => n);
  return [...stdioNames.filter((n) => only.get(n) !== 'stdio'), ...httpOnly];
}

/** What the stand-in model and the simulator saw of one run, onto its result `r` (both suites read the same). */
export function takeModelRecord(r, rec, sim) {
  r.offered = rec.offered;
  r.calls = rec.calls;
  r.outcome = rec.outcome;
  r.finalText = rec.finalText;
  r.modelRequests = rec.requests;
  r.otherRequests = rec.other;
  r.posts = sim.posts();
}

export function flowProblems(r, toolName, toolNames) {
  const p = [];
  const offered = new Set(r.offered);
  const want = toolNames.map((n) => toolName(n));
  const missing = want.filter((n) => !offered.has(n));
  r.connected = r.offered.length > 0 && missing.length < want.length;
  r.toolsOk = missing.length === 0;
  r.toolsText = `${want.length - missing.length}/${want.length}`;
  // The flow as the model drove it: the quote, then the confirmed call, then waits (a client that skipped or
  // repeated a step would otherwise still end `completed`).
  const bases = r.calls.map((c) => toolNames.find((n) => toolName(n) === c) ?? c);
  const shape = /^list_avatars create_talking_video create_talking_video( wait_for_jobs)+$/;
  r.completed = r.outcome === 'completed' && shape.test(bases.join(' '));
  if (r.outcome === 'completed' && !r.completed) p.push(`calls out of order: ${bases.join(' → ')}`);
  if (!r.connected) p.push(`no tool of ours offered to the model (offered: ${r.offered.join(', ') || 'none'})`);
  else if (!r.toolsOk) p.push(`tools not offered under ${toolName('<tool>')}: ${missing.join(', ')}`);
  if (r.outcome !== 'completed')
    p.push(`paid flow: ${r.finalText ?? `the model was never asked past ${r.calls?.join(' → ') || 'the start'}`}`);
  if (r.posts !== 1) p.push(`${r.posts} POST /video/generate (want 1)`);
  return p;
}
