import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/helpers/longest-first-sequencer.js';

/**
 * Two projects: the whole suite through a 2025-11-25 client (`legacy`), and every test that goes through the
 * harness (test/helpers/harness.ts) again through a 2026-07-28 client (`modern`: SDK v2 client pinned to the
 * new revision, served per request by `createMcpHandler`). Each invariant test thus runs in both eras. The HTTP
 * tests (test/http, the HTTP fleet) read the era from GENPLAT_TEST_ERA through test/http/helpers.ts and run in both.
 */
const HARNESS_FILES = (() => {
  // Computed at config time: the files that import the harness are the ones an era changes.
  const { readdirSync, readFileSync, statSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const out: string[] = [];
  const ONCE_DIRS = ['durability/', 'tools/', 'review/', 'review2/', 'review3/', 'review4/'];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!p.endsWith('.test.ts')) continue;
      // The browser View tests render the same HTML from the same results in either era (the Apps server side,
      // confirm_paid_call included, runs in both through test/apps/apps-server.test.ts): once is enough.
      else if (p.endsWith('.browser.test.ts')) continue;
      // Below the protocol: the store and spool under faults (test/durability), one tool's request and answer
      // mapping (test/tools) and the review regressions of those (test/review*) run the same code after consent in
      // either era; the era's own paths (consent carriers, tasks, listen, requestState, per-request servers) are
      // in test/protocol, test/core, test/http, test/invariants, test/campaigns, test/approvals, test/fleet, which
      // stay in both (issue 27 item 8: ~85 s of the ~300 s the modern project re-ran). A file there that needs
      // the 2026 client passes `era: 'modern'` itself (test/review/url-only-elicitation.test.ts).
      else if (ONCE_DIRS.some((d) => p.startsWith(join('test', d)))) continue;
      else {
        const text = readFileSync(p, 'utf8');
        // A test/http file that speaks no MCP (no client, fixture or era: the bin's exit codes, signals and ports,
        // test/http/bin-failures.test.ts) is the same in either era: once is enough.
        if (p.startsWith(join('test', 'http')) && !/Client|startHttpFixture|testEra|eraOptions|startHarness/.test(text))
          continue;
        if (p.startsWith(join('test', 'http')) || /helpers\/harness|http\/helpers/.test(text)) out.push(p);
      }
    }
  };
  walk('test');
  return out;
})();

export default defineConfig({
  test: {
    // Integration tests start a loopback simulator and real MCP clients; give them room on a shared 2-core box.
    testTimeout: 30_000,
    // Once per run: which PostgreSQL the tests use (the machine's on 127.0.0.1:5432, else an embedded one from npm),
    // handed to the workers as GENPLAT_TEST_DATABASE_URL.
    globalSetup: ['test/helpers/postgres-server.ts'],
    hookTimeout: 30_000,
    pool: 'forks',
    // Where npm test's time went (issue 13 item 7): importing the SDK, zod and our sources again in a fresh
    // module graph for every one of ~250 file runs (both projects), CPU-bound on a 2-core box. A worker now keeps
    // its module graph from file to file: test/tools + test/unit went from 31 s to 10 s of CPU; the whole run, with
    // 3 workers, from 4 m 32 s to 2 m 15 s of wall time (`time npx vitest run`, 2-core box shared with other jobs,
    // load average 3-6; every test passing in both). Tests that need a pristine
    // process spawn one (test/helpers/spawn-server.ts) or reset what they change (fake timers in afterEach).
    isolate: false,
    // vitest's default on 2 cores is 1 worker; many files wait on real time in child processes (the sandbox's
    // 8-15 s jobs, poll intervals, held answers of the fault proxy, Chromium). At rest on the 2-core box the suite
    // keeps the CPU busy only ~75 % of the time with 3 workers (210 s wall, 156 s CPU), so more workers overlap the
    // waits: 6 → 145 s (issue 27 item 8); with issue 28's 49 files, 6 → 169 s and 8 → 155 s (docs/figures.md).
    maxWorkers: 8,
    // The longest files first, across both era projects (test/helpers/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: { name: 'legacy', include: ['test/**/*.test.ts'], env: { GENPLAT_TEST_ERA: 'legacy' } },
      },
      {
        extends: true,
        test: { name: 'modern', include: HARNESS_FILES, env: { GENPLAT_TEST_ERA: 'modern' } },
      },
    ],
  },
});
