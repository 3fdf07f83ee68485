import { expect } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { checkParams } from '../../../tools/enterprise/models/check.js';
import type { ModelSpec } from '../../../tools/enterprise/models/spec.js';

export const IMG = 'https://cdn.example.com/a.png';
export const IMG2 = 'https://cdn.example.com/b.png';
export const VID = 'https://cdn.example.com/a.mp4';
export const DATA_URI = 'data:image/png;base64,iVBORw0KGgo=';
export const PRIVATE = 'http://192.168.1.10/a.png';

/** The UserInputError checkParams throws, or undefined when params pass. */
export function problem(spec: ModelSpec | undefined, params: Record<string, unknown>): UserInputError | undefined {
  try {
    checkParams(spec, params);
    return undefined;
  } catch (err) {
    if (err instanceof UserInputError) return err;
    throw err;
  }
}

export function accepts(spec: ModelSpec, params: Record<string, unknown>): void {
  const p = problem(spec, params);
  expect(p?.message).toBeUndefined();
}

/** Rejected, on `field` (e.g. `params.size`), with a rule matching `rule` when given. */
export function rejects(spec: ModelSpec, params: Record<string, unknown>, field: string, rule?: RegExp): void {
  const p = problem(spec, params);
  expect(p, `expected ${JSON.stringify(params)} to be rejected`).toBeInstanceOf(UserInputError);
  expect(p!.field).toBe(field);
  if (rule) expect(p!.rule).toMatch(rule);
}
