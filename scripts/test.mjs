#!/usr/bin/env node
/**
 * `npm test`: build, then the whole suite and every static check side by side.
 *
 * Why not one after the other: vitest keeps the 2-core box busy only ~75 % of its wall time (many files wait on
 * child processes, held answers and Chromium), while lint, the typecheck of every file (tests included) and the
 * generated-docs check are ~14 s of pure CPU that used to run before or after it (issue 27 item 8). Run beside
 * vitest, they fill its idle time instead of adding to the wall time.
 *
 * Steps:
 * 1. build (`tsc -p tsconfig.build.json --noCheck` + build:finish): the JavaScript tests run (dist/) and nothing
 *    else; `--noCheck` emits what a checked build emits, without the type pass step 2 does anyway.
 * 2. at once: vitest (its output streams as usual), and — output held until each ends — Biome, `tsc --noEmit`
 *    over src, tools, resources, test and scripts, and `generate-docs --check`.
 * Exit 0 only when every step passed; a failing step's output is printed with its name.
 * Extra arguments go to vitest (`npm test -- test/unit`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
/** Each tool's own JavaScript entry, run by this Node: no shell, no `.cmd` shims, the same on every OS. */
const entry = {
  tsc: join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  biome: join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'),
  vitest: join(root, 'node_modules', 'vitest', 'vitest.mjs'),
  docs: join(root, 'dist', 'scripts', 'generate-docs.js'),
};
const node = process.execPath;

/** Runs a command; `held` buffers its output (printed when it ends) so vitest's own output stays readable. */
function run(name, command, args, { held = false } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd: root, stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks = [];
    if (held) {
      child.stdout.on('data', (c) => chunks.push(c));
      child.stderr.on('data', (c) => chunks.push(c));
    }
    child.on('error', (err) => resolve({ name, ok: false, output: String(err), seconds: 0 }));
    child.on('close', (code, signal) =>
      resolve({
        name,
        ok: code === 0,
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (Date.now() - started) / 1000,
        why: signal ? `killed by ${signal}` : `exit ${code}`,
      }),
    );
  });
}

function report(result) {
  const head = `[${result.name}] ${result.ok ? 'passed' : `FAILED (${result.why})`} in ${result.seconds.toFixed(1)} s`;
  if (!result.ok && result.output) process.stdout.write(`\n${head}\n${result.output}\n`);
  else process.stdout.write(`${head}\n`);
}

// Run under npm (`npm test`), npm_execpath is npm's own CLI script: build:finish runs without a shell.
const npm = process.env.npm_execpath ? [node, [process.env.npm_execpath]] : ['npm', []];
for (const [name, command, args] of [
  ['build', node, [entry.tsc, '-p', 'tsconfig.build.json', '--noCheck']],
  ['build:finish', npm[0], [...npm[1], 'run', 'build:finish', '--silent']],
]) {
  const step = await run(name, command, args);
  if (!step.ok) {
    report(step);
    process.exit(1);
  }
}

const checks = [
  run('lint', node, [entry.biome, 'check', '.'], { held: true }),
  run('typecheck', node, [entry.tsc, '-p', 'tsconfig.json', '--noEmit'], { held: true }),
  run('docs', node, [entry.docs, '--check'], { held: true }),
];
const vitest = run('vitest', node, [entry.vitest, 'run', ...process.argv.slice(2)]);
const results = [await vitest, ...(await Promise.all(checks))];
process.stdout.write('\n');
for (const r of results) report(r);
process.exit(results.every((r) => r.ok) ? 0 : 1);
