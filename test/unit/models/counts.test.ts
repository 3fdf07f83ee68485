/** Counts and durations in run_model params (tools/enterprise/models/counts.ts): field errors, never a price. */
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { checkCounts, isCountName } from '../../../tools/enterprise/models/counts.js';

const NAMES = [
  'num_images',
  'n',
  'num_outputs',
  'max_images',
  'batch_size',
  'number_of_images',
  'num_videos',
  'duration',
];
const BAD: unknown[] = [0, -5, 1.5, 'abc', '0', '-1', '2.5', '', null, true, [2], { n: 2 }];

describe('checkCounts', () => {
  it.each(NAMES.flatMap((name) => BAD.map((v) => [name, JSON.stringify(v), v] as const)))(
    '%s = %s → a field error naming params.%s',
    (name, _shown, value) => {
      let err: unknown;
      try {
        checkCounts({ prompt: 'p', [name]: value });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserInputError);
      expect((err as UserInputError).field).toBe(`params.${name}`);
      expect((err as UserInputError).rule).toMatch(/integer of at least 1/);
    },
  );

  it('whole numbers ≥ 1, as numbers or digit strings, pass', () => {
    for (const name of NAMES) for (const v of [1, 4, '3']) expect(() => checkCounts({ [name]: v })).not.toThrow();
  });

  it('names that are not output counts are left to the model rules', () => {
    expect(isCountName('max_generated_reference_images')).toBe(false);
    expect(isCountName('num_inference_steps')).toBe(false);
    expect(() => checkCounts({ max_generated_reference_images: 0, seed: -1 })).not.toThrow();
  });
});
