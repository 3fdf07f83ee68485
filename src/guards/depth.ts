/**
 * A bound on how deeply tool arguments nest. Open records (run_model `params`) accept any JSON, and every
 * recursive walk over them (URL guard, canonical form, JSON Schema checks) would overflow the stack on an
 * argument nested thousands of levels deep: a crash, not an answer. Real arguments nest a few levels.
 */

import { UserInputError } from '../errors.js';
import { MAX_BODY_DEPTH } from '../paid/fingerprint.js';

/** Deepest nesting accepted in a tool's arguments: the canonical form's bound, so whatever passes here fits it. */
export const MAX_ARGUMENT_DEPTH = MAX_BODY_DEPTH - 1;

/**
 * Walks `args` without recursion (so the walk itself cannot overflow).
 * @throws UserInputError naming the path where the nesting went past `max` levels.
 */
export function checkArgumentDepth(args: Record<string, unknown>, max = MAX_ARGUMENT_DEPTH): void {
  const stack: [unknown, string, number][] = [[args, '', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop() as [unknown, string, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth > max) {
      throw new UserInputError(path, `nested deeper than ${max} levels; no tool argument needs that, so flatten it`);
    }
    const entries = Array.isArray(value)
      ? value.map((v, i) => [`${path}[${i}]`, v] as const)
      : Object.entries(value).map(([k, v]) => [path ? `${path}.${k}` : k, v] as const);
    for (const [p, v] of entries) stack.push([v, p, depth + 1]);
  }
}
