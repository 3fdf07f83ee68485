/**
 * The duplicate guard's and the confirmation token's key: sha256 over the tool name and a canonical form of
 * its arguments. Two calls that would send the same job get the same fingerprint even if the agent reorders
 * keys or pads a string with spaces; any change that could change the job changes it.
 */
import { createHash } from 'node:crypto';

/** Arguments that steer our own guard, not the job: never part of the fingerprint. */
export const GUARD_ARGS = ['confirmation_token', 'allow_duplicate'] as const;

/**
 * Canonical JSON: object keys sorted, strings trimmed, `undefined` members dropped (as JSON does),
 * array order kept (it is meaningful: scenes, image lists).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : normalise(v)));
  if (value && typeof value === 'object') {
    // Null prototype: a "__proto__" key (possible in free-form records) must stay data, not a prototype.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = normalise(v);
    }
    return out;
  }
  return value;
}

/** sha256 hex of `tool` + canonical arguments (guard arguments removed). */
export function fingerprint(tool: string, args: Record<string, unknown>): string {
  const rest: Record<string, unknown> = { ...args };
  for (const k of GUARD_ARGS) delete rest[k];
  return createHash('sha256').update(tool).update('\n').update(canonicalJson(rest)).digest('hex');
}
