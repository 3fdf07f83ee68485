#!/usr/bin/env node
/**
 * Client-compatibility suite (issue 13 item 1): real MCP clients and agent frameworks, each in its own process,
 * start the built server over stdio (`dist/src/index.js --sandbox`, temp state dir, GENPLAT_CONFIRM unset),
 * load every tool through the framework's own conversion, and complete
 *   list_avatars/list_voices → create_talking_video (quote) → create_talking_video + token → wait_for_jobs
 * with the framework's own tool objects (no model). Prints the table, writes compat/results.json, and exits 1
 * when a client fails: not connected, a tool missing, the flow not completed, a conversion warning that
 * expected-warnings.json does not list, or an entry there that no warning matched (stale).
 *
 *   npm ci --prefix compat && npm run build && node_modules/.bin/node compat/run.mjs [--readme] [client ...]
 * `--readme` writes the table into docs/figures.md between the compat markers (the flag keeps its old name).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENTRY, NODE, ROOT } from './lib/server.mjs';

const CLIENTS = ['langchain', 'ai-sdk', 'openai-agents', 'mastra', 'inspector'];
// One client's connect + flow takes ~20-30 s (the sandbox finishes a talking video in ~15 s); 150 s is a hang.
const CLIENT_TIMEOUT_MS = 150_000;

const args = process.argv.slice(2);
const writeReadme = args.includes('--readme');
const only = args.filter((a) => !a.startsWith('--'));
const chosen = only.length > 0 ? only : CLIENTS;
const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'expected-warnings.json'), 'utf8'));
readFileSync(ENTRY); // fails early, naming the path, when the server is not built

const work = mkdtempSync(join(tmpdir(), 'genplat-compat-'));
const results = [];
const started = performance.now();
try {
  for (const id of chosen) {
    const out = join(work, `${id}.json`);
    try {
      await promisify(execFile)(NODE, [join(import.meta.dirname, 'lib/client-main.mjs'), id, out], {
        timeout: CLIENT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
      results.push(JSON.parse(readFileSync(out, 'utf8')));
    } catch (err) {
      results.push({
        id,
        name: id,
        ran: false,
        error: `client process: ${String(err?.message ?? err).slice(0, 2000)}`,
      });
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Judges one result's warnings against its expected entries; returns the problems. */
function judge(r) {
  const problems = [];
  if (!r.ran) problems.push(r.error ?? `tools ${r.toolsLoaded}/${r.toolsExpected}, missing ${r.missing?.join(', ')}`);
  const entries = (expected[r.id] ?? []).map((e) => ({ ...e, seen: 0 }));
  for (const w of r.warnings ?? []) {
    const entry = entries.find((e) => w.text.startsWith(e.match) && w.tools.includes(e.tool));
    if (entry) {
      entry.seen++;
      w.expected = `${entry.tool} ${entry.field}`;
    } else
      problems.push(`unexpected warning${w.tools.length ? ` (${w.tools.join(', ')})` : ''}: ${w.text.split('\n')[0]}`);
  }
  if (r.ran) {
    for (const e of entries.filter((x) => x.seen === 0)) problems.push(`stale expected warning: ${e.tool} ${e.field}`);
  }
  return problems;
}

for (const r of results) {
  r.problems = judge(r);
  r.passed = r.problems.length === 0;
}
const cell = (v) => String(v ?? '').replaceAll('|', '\\|');
const rows = results.map((r) => {
  const allowed = (r.warnings ?? []).filter((w) => w.expected).map((w) => w.tools.join(','));
  const tools = `${r.toolsLoaded ?? 0}/${r.toolsExpected ?? '?'}${allowed.length ? ` (non-strict: ${allowed.join(', ')})` : ''}`;
  return `| ${cell(r.name)} | ${cell(r.version)} | ${tools} | ${r.flowCompleted ? 'yes' : 'no'} | ${r.calls ?? 0} | ${r.seconds ?? ''} |`;
});
const table = [
  '| client | version | tools loaded | flow completed | calls | seconds |',
  '|---|---|---|---|---|---|',
  ...rows,
].join('\n');
const total = Math.round((performance.now() - started) / 100) / 10;
const failed = results.filter((r) => !r.passed);

console.log(table);
for (const r of results) {
  for (const w of r.warnings ?? []) {
    const about = w.expected ? ` (expected: ${w.expected})` : w.tools.length ? ` (${w.tools.join(', ')})` : '';
    // The first line verbatim here; the whole text (stack included) is in results.json.
    console.log(`\n${r.id} warning${about} [${w.via}]:\n  ${w.text.split('\n')[0]}`);
  }
  for (const n of r.notes ?? []) console.log(`\n${r.id} note: ${n.split('\n').join('\n  ')}`);
  for (const p of r.problems) console.log(`\n${r.id} FAILED: ${p}`);
  if (!r.passed && r.serverLogTail) console.log(`\n${r.id} server log (tail):\n${r.serverLogTail}`);
}
console.log(`\ncompat: ${results.length - failed.length} passed, ${failed.length} failed (${total} s)`);

writeFileSync(
  join(import.meta.dirname, 'results.json'),
  `${JSON.stringify({ node: process.version, seconds: total, results }, null, 2)}\n`,
);
if (writeReadme) {
  const readme = join(ROOT, 'docs', 'figures.md');
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- compat:start -->\n)[\s\S]*?(<!-- compat:end -->)/;
  if (!re.test(text)) throw new Error('docs/figures.md has no <!-- compat:start --> … <!-- compat:end --> block');
  writeFileSync(readme, text.replace(re, `$1${table}\n$2`));
}
process.exitCode = failed.length > 0 ? 1 : 0;
