import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest test files first, across both era projects (issue 27 item 8).
 *
 * vitest's own order runs the `legacy` project's files before any of `modern`'s, so the modern copies of the long
 * files (store faults, the fault matrix, admission-unknown: 20-35 s each, mostly waiting on real time) start only
 * when the legacy queue drains and then run side by side at the end: the run's tail. Ordering every file by how long
 * it takes, whatever its project, lets those waits overlap with the short files' work.
 *
 * How long a file takes: vitest's own cache of the last run on this machine when it has one, else the figures
 * recorded in test/file-durations.json (a clean clone, CI), else 0 (a new file: after the known long ones). The
 * order changes only when tests start, never what they prove; a stale table costs time, not correctness.
 * Regenerate it with `npm run test:durations` after a full run (it reads vitest's own cache).
 */
const RECORDED: Record<string, number> = (() => {
  try {
    return JSON.parse(readFileSync(new URL('../file-durations.json', import.meta.url), 'utf8')) as Record<
      string,
      number
    >;
  } catch {
    return {};
  }
})();

/** A file this long starts first whatever its project (see sort). */
const LONG_S = 15;

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached && !cached.failed) return cached.duration / 1000;
      return RECORDED[path] ?? 0;
    };
    const failedFirst = (spec: TestSpecification): number =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`)?.failed ? 1 : 0;
    // Projects stay one after the other, as in vitest's own order: a worker keeps its module graph only within a
    // project (isolate: false), and mixing them cost 60 % more CPU and 75 s more wall time (docs/figures.md).
    const project = (a: TestSpecification, b: TestSpecification): number =>
      a.project.name === b.project.name ? 0 : a.project.name < b.project.name ? -1 : 1;
    // Except the long files (LONG_S and more) of both projects, which go first: started last, the modern project's
    // copies of the fault and fleet files (25-37 s each) were the run's tail. A few project switches per worker
    // are cheap; interleaving every file was not (above).
    const long = (spec: TestSpecification): number => (seconds(spec) >= LONG_S ? 0 : 1);
    return [...files].sort(
      (a, b) =>
        long(a) - long(b) ||
        (long(a) === 0 ? 0 : project(a, b)) ||
        failedFirst(b) - failedFirst(a) ||
        seconds(b) - seconds(a),
    );
  }
}
