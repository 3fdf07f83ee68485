// Records how long each test file took (the longest of its two era runs) into test/file-durations.json, which
// test/helpers/longest-first-sequencer.ts reads to start the long files first in a clean clone (issue 27 item 8).
// Usage: npm run test:durations   (runs vitest once with the JSON reporter, then writes the table)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const report = '/tmp/genplat-file-durations.json';
execFileSync('npx', ['vitest', 'run', '--reporter=json', `--outputFile=${report}`], { stdio: 'inherit' });
const result = JSON.parse(readFileSync(report, 'utf8'));
const table = {};
for (const file of result.testResults) {
  const path = relative(process.cwd(), file.name);
  const seconds = Math.round((file.endTime - file.startTime) / 100) / 10;
  table[path] = Math.max(table[path] ?? 0, seconds);
}
const sorted = Object.fromEntries(Object.entries(table).sort(([, a], [, b]) => b - a));
writeFileSync('test/file-durations.json', `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);
