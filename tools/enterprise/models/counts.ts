/**
 * Counts and lengths in run_model params (issue 18): every name a model might read as "how many outputs"
 * and the duration. They multiply the price, so a value that is not a whole number ≥ 1 is refused before
 * anything is sent (design.md §1 invariant 4): 0 would price at nothing while the platform bills its
 * default, a negative one would lower the quote, and a fraction or text cannot be priced at all.
 */
import { UserInputError } from '../../../src/errors.js';

/**
 * Output-count names: exact ones, `num_|number_of_|n_|max_` + an output noun, and `<noun>_count`. Kept to
 * output nouns so that `max_generated_reference_images` or `num_inference_steps` are not counts (on a model
 * without a published schema they are unknown numbers, which make the quote unbounded instead).
 */
const COUNT_EXACT = new Set(['n', 'count', 'batch_size', 'batch_count', 'samples']);
const COUNT_NAME =
  /^(?:(?:num|number_of|n|max)_(?:images|outputs|videos|samples|generations|results|variations|clips)|(?:image|output|video|sample)s?_count)$/;

export function isCountName(key: string): boolean {
  // camelCase spellings (`numImages`, `sampleCount`, `numberOfImages`) and singulars (`num_image`) read the same.
  const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  const plural = snake.replace(/_(image|output|video|sample|generation|result|variation|clip)$/, '_$1s');
  return COUNT_EXACT.has(snake) || COUNT_NAME.test(snake) || COUNT_NAME.test(plural);
}

/** The one duration name a price may read (seconds). Other spellings are unknown numbers. */
export const DURATION = 'duration';

/** A whole number ≥ 1 sent as a JSON number or a string of digits (some models take `"5"`), else undefined. */
export function wholeCount(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/**
 * @throws UserInputError naming `params.<name>` when a count or the duration is 0, negative, fractional or
 * not a number. Runs for every model, with or without a published schema, before its own rules.
 */
export function checkCounts(params: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(params)) {
    const isCount = isCountName(key);
    if (!isCount && key !== DURATION) continue;
    if (value === undefined || wholeCount(value) !== undefined) continue;
    const what = isCount ? 'a count of outputs' : 'a duration in seconds';
    throw new UserInputError(
      `params.${key}`,
      `must be an integer of at least 1 (${what}; 0, negatives, fractions and text cannot be priced)`,
      'Fix params and call again; nothing was sent or charged.',
    );
  }
}
