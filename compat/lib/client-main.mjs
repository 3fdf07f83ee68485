/**
 * One client in its own process: `node lib/client-main.mjs <client> <result.json>`. Installs the output
 * capture, imports the client module (so the framework loads under capture), runs it, and writes
 * { name, version, toolsLoaded, toolsExpected, flowCompleted, calls, seconds, warnings, notes, error } to the
 * result file (`ran` = connected, loaded every tool, completed the flow; warnings are judged by run.mjs).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classify, installCapture, report } from './capture.mjs';
import { ROOT } from './server.mjs';

const [id, out] = process.argv.slice(2);
// The server under test must see no consent policy from the caller's environment.
for (const k of Object.keys(process.env)) if (k.startsWith('GENPLAT_')) delete process.env[k];
// The model's surface: the snapshot is taken as an MCP Apps host sees it, and these clients declare no Apps, so the
// App-only Confirm button (src/protocol/app-only.ts) is not listed to them.
const APP_ONLY = new Set(['confirm_paid_call']);
// Over stdio: not the tools listed only over HTTP (the snapshot's `only`: src/tool-visibility.ts).
const expected = JSON.parse(readFileSync(join(ROOT, 'test/contract/__snapshots__/tools-list.json'), 'utf8'))
  .filter((t) => t.only !== 'http')
  .map((t) => t.name)
  .filter((n) => !APP_ONLY.has(n));

installCapture();
const started = performance.now();
const result = { id, toolsExpected: expected.length, toolsLoaded: 0, flowCompleted: false, calls: 0 };
let cleanup = [];
try {
  const client = await import(`../clients/${id}.mjs`);
  Object.assign(result, { name: client.NAME, version: client.version() });
  const r = await client.run({ expected, label: id, onCleanup: (f) => cleanup.push(f), result });
  Object.assign(result, r);
} catch (err) {
  result.error = String(err?.stack ?? err).slice(0, 3000);
} finally {
  for (const f of cleanup.reverse()) {
    try {
      await f();
    } catch (err) {
      result.cleanupError = String(err?.message ?? err);
    }
  }
  cleanup = [];
}
result.seconds = Math.round((performance.now() - started) / 100) / 10;
const missing = expected.filter((n) => !(result.toolNames ?? []).includes(n));
Object.assign(result, classify(expected), { missing });
// Warnings are judged by the runner against expected-warnings.json; here: connected, every tool, the flow.
result.ran = !result.error && result.flowCompleted && missing.length === 0;
// On a failure the server's own log (stderr) tells its side; the state dir goes either way.
if (!result.ran && result.stateDir) {
  try {
    result.serverLogTail = readFileSync(join(result.stateDir, 'server.log'), 'utf8').slice(-3000);
  } catch {}
}
if (result.stateDir) rmSync(result.stateDir, { recursive: true, force: true });
delete result.stateDir;
delete result.toolNames;
writeFileSync(out, JSON.stringify(result, null, 2));
report(`compat ${id}: ${result.ran ? 'flow completed' : 'FAILED'} in ${result.seconds} s`);
process.exit(0);
