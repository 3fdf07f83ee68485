import { describe, expect, it } from 'vitest';
import { flareEdit } from '../../../tools/enterprise/models/g-image-2-5-flare-edit.js';
import { MODEL_SPECS } from '../../../tools/enterprise/models/index.js';
import { paramsJsonSchema } from '../../../tools/enterprise/models/listing.js';
import { IMG, problem } from './helpers.js';

describe('checkParams', () => {
  it('passes unknown models through when params are non-empty', () => {
    expect(problem(undefined, { prompt: 'x' })).toBeUndefined();
    expect(problem(undefined, {})?.message).toBe('params: must not be empty');
  });

  it('rejects billing controls on every model, known or not', () => {
    expect(problem(undefined, { prompt: 'x', user_id: 'u' })?.field).toBe('params.user_id');
    expect(problem(flareEdit, { prompt: 'x', image_urls: [IMG], cost: 1 })?.field).toBe('params.cost');
  });

  it('names the first problem and lists up to three', () => {
    const p = problem(flareEdit, { quality: 'nope', background: 'x', output_format: 'gif', size: 'big' });
    expect(p?.field).toBe('params.prompt');
    expect(p?.message).toMatch(/^params\.prompt: is required \(also params\.image_urls: is required; params\.size: /);
    expect(p?.message.match(/params\./g)?.length).toBe(3);
    expect(p?.nextStep).toMatch(/genplat:\/\/models/);
  });
});

describe('params JSON Schema', () => {
  it.each(MODEL_SPECS.map((s) => [s.shape, s] as const))('%s converts to a JSON Schema object', (_shape, spec) => {
    const schema = paramsJsonSchema(spec);
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties as object).length).toBeGreaterThan(0);
    // Every shape but the video-to-video one requires a prompt.
    if (spec.shape !== '<vendorE>-h3-max-3d-to-video') expect(schema.required).toContain('prompt');
    if (spec.strict) expect(schema.additionalProperties).toBe(false);
  });
});
