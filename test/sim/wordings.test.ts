/**
 * The sandbox models whose price texts the grammar refuses (src/sim/models/wordings.ts) charge what each text
 * plainly says, per output asked for: the quote-bounds property test relies on these figures.
 */
import { describe, expect, it } from 'vitest';
import type { Body } from '../../src/sim/check.js';
import { requestedOutputs } from '../../src/sim/models/outputs.js';
import { WORDING_MODELS } from '../../src/sim/models/wordings.js';

const env = { isPublicUrl: () => true };
const charge = (model: string, params: Body) => {
  const m = WORDING_MODELS.find((x) => x.model === model)!;
  return m.validate({ prompt: 'p', ...params }, env, model).credits;
};

describe('wording models charge what their text says', () => {
  it.each([
    ['tempo-1-t2v', {}, 12],
    ['tempo-1-t2v', { duration: 11 }, 36],
    ['tempo-1-long', { duration: 61 }, 60],
    ['tempo-1-frames', { duration: 2, fps: 30 }, 120],
    ['lumen-1', { num_images: 4 }, 40],
    ['lumen-1-hd', { resolution: '4K' }, 40],
    ['lumen-1-tiers', { resolution: '4K', n: 2 }, 120],
    ['lumen-1-plus', { resolution: '4k' }, 12],
    ['lumen-1-x2', { resolution: '1080p' }, 20],
    ['lumen-1-mp', { size: '2048x2048' }, 12],
    ['lumen-1-batch', { batch_size: 3 }, 30],
  ] as const)('%s %j → %i', (model, params, credits) => {
    expect(charge(model, params as Body)).toBe(credits);
  });

  it('every count spelling multiplies; 0, negatives and text are read as the default 1', () => {
    expect(requestedOutputs({ num_images: 2, batch_size: 3 })).toBe(6);
    for (const v of [0, -5, 1.5, 'abc', '0']) expect(requestedOutputs({ n: v })).toBe(1);
  });
});
