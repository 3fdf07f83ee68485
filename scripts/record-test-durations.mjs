// Records how long each test file took (the longer of its two era runs) into test/file-durations.json, which
// test/helpers/longest-first-sequencer.ts reads to start the long files first in a clean clone (issue 27 item 8).
// Usage: npm run test:durations   (after a full `vitest run` on this machine: reads vitest's own duration cache)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheDir = 'node_modules/.vite/vitest';
const cache = readdirSync(cacheDir)
  .map((d) => join(cacheDir, d, 'results.json'))
  .find((p) => {
    try {
      return readFileSync(p).length > 0;
    } catch {
      return false;
    }
  });
if (!cache) throw new Error(`no vitest results cache under ${cacheDir}: run \`npx vitest run\` first`);
const table = {};
for (const [key, { duration }] of JSON.parse(readFileSync(cache, 'utf8')).results) {
  const path = key.replace(/^[a-z]+:/, '');
  table[path] = Math.max(table[path] ?? 0, Math.round((duration ?? 0) / 100) / 10);
}
const sorted = Object.fromEntries(Object.entries(table).sort(([, a], [, b]) => b - a));
writeFileSync('test/file-durations.json', `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);
