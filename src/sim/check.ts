/**
 * Request-rule helpers for simulator routes. Each throws `SimHttpError(400, "<field>: <rule>")`, the way the
 * platform reports invalid input. Kept independent of the tools' zod schemas on purpose: the simulator is a
 * second, separate reading of the spec, so a rule the tools get wrong is caught by it, not mirrored.
 */
import { SimHttpError } from './types.js';

export type Body = Record<string, unknown>;

export function bad(message: string): never {
  throw new SimHttpError(400, message);
}

export function asBody(json: unknown): Body {
  if (!json || typeof json !== 'object' || Array.isArray(json)) bad('body: must be a JSON object');
  return json as Body;
}

export function requireString(
  body: Body,
  field: string,
  opts: { min?: number; max?: number; label?: string } = {},
): string {
  const v = body[field];
  if (v === undefined || v === null || v === '') bad(`${field}: is required`);
  if (typeof v !== 'string') bad(`${field}: must be a string`);
  return checkLength(field, v, opts);
}

export function optionalString(
  body: Body,
  field: string,
  opts: { min?: number; max?: number } = {},
): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') bad(`${field}: must be a string`);
  return checkLength(field, v, opts);
}

function checkLength(field: string, v: string, opts: { min?: number; max?: number }): string {
  if (opts.min !== undefined && v.length < opts.min) bad(`${field}: must be at least ${opts.min} characters`);
  if (opts.max !== undefined && v.length > opts.max) bad(`${field}: must be at most ${opts.max} characters`);
  return v;
}

export function optionalNumber(
  body: Body,
  field: string,
  opts: { min?: number; max?: number; integer?: boolean } = {},
): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) bad(`${field}: must be a number`);
  if (opts.integer && !Number.isInteger(v)) bad(`${field}: must be an integer`);
  if (opts.min !== undefined && v < opts.min) bad(`${field}: must be at least ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) bad(`${field}: must be at most ${opts.max}`);
  return v;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') bad(`${field}: must be a boolean`);
  return v;
}

export function optionalEnum<T extends string>(body: Body, field: string, allowed: readonly T[]): T | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    bad(`${field}: must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function requireEnum<T extends string>(body: Body, field: string, allowed: readonly T[]): T {
  if (body[field] === undefined || body[field] === null || body[field] === '') bad(`${field}: is required`);
  return optionalEnum(body, field, allowed)!;
}

export function optionalStringArray(
  body: Body,
  field: string,
  opts: { min?: number; max?: number } = {},
): string[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) bad(`${field}: must be an array of strings`);
  if (opts.min !== undefined && v.length < opts.min) bad(`${field}: must have at least ${opts.min} item(s)`);
  if (opts.max !== undefined && v.length > opts.max) bad(`${field}: must have at most ${opts.max} item(s)`);
  return v as string[];
}

export function requireStringArray(body: Body, field: string, opts: { min?: number; max?: number } = {}): string[] {
  if (body[field] === undefined || body[field] === null) bad(`${field}: is required`);
  return optionalStringArray(body, field, opts)!;
}

/** Strict endpoints: any field outside `allowed` is rejected. */
export function rejectUnknown(body: Body, allowed: readonly string[], where = 'body'): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) bad(`${key}: unknown parameter for ${where}`);
  }
}

/** Spec convention 10: bodies never contain `user_id` or client-supplied billing controls. */
export const BILLING_CONTROL_FIELDS = [
  'user_id',
  'credits',
  'credit',
  'price',
  'cost',
  'billing',
  'charge',
  'amount',
] as const;

export function rejectBillingControls(body: Body): void {
  for (const f of BILLING_CONTROL_FIELDS)
    if (f in body) bad(`${f}: must not be sent (the key identifies the account; billing is server-side)`);
}
