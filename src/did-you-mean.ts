/**
 * "Did you mean --sandbox?": the known word closest to a mistyped one, for the command line's error messages.
 * Spelling variants count as the same word (`--stateDir`, `--state_dir` → `--state-dir`), a prefix counts as a
 * match (`--sand` → `--sandbox`), and anything else must be within a typo or two.
 */

/** Case, `-` and `_` are spelling, not meaning. */
const fold = (s: string) => s.toLowerCase().replace(/[-_]/g, '');

/** Edit distance with adjacent swaps (optimal string alignment): `--sandobx` is one typo from `--sandbox`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `given`, or undefined when none is close enough to be a likely typo. */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  const g = fold(given);
  if (!g) return undefined;
  let best: { word: string; score: number } | undefined;
  for (const word of candidates) {
    const w = fold(word);
    // A prefix of at least 3 letters is what a person types when they half remember a flag.
    const score = w === g ? 0 : g.length >= 3 && w.startsWith(g) ? 1 : editDistance(g, w);
    if (!best || score < best.score) best = { word, score };
  }
  // One typo in a short word, two in a longer one: beyond that a suggestion is more confusing than none.
  const limit = g.length <= 4 ? 1 : 2;
  return best && best.score <= limit ? best.word : undefined;
}
