/**
 * The duplicate guard's and the confirmation token's key: sha256 over the tool name, the route and a
 * canonical form of the exact request body that will be POSTed (`BillableToolSpec.request`). A token is
 * therefore valid for exactly one body: anything that changes what is sent (a trailing space, a default,
 * another engine's route, other file bytes) changes the fingerprint; only key order does not.
 */
import { createHash } from 'node:crypto';

/**
 * Deepest nesting the canonical form follows. Real bodies are a few levels deep (run_model params, scenes);
 * a body nested deeper is refused instead of recursing until the stack overflows.
 */
export const MAX_BODY_DEPTH = 32;

/** A request body nested deeper than `MAX_BODY_DEPTH`; `path` is where it went too deep (e.g. `params.a.b`). */
export class BodyTooDeepError extends Error {
  readonly path: string;
  constructor(path: string) {
    super(`nested deeper than ${MAX_BODY_DEPTH} levels at ${path}`);
    this.path = path;
  }
}

/**
 * Canonical JSON: object keys sorted, `undefined` members dropped and `undefined` array items as `null` (as
 * `JSON.stringify` sends them), strings exactly as sent, array order kept (it is meaningful: scenes, image
 * lists), file bytes (`Uint8Array`) as `{sha256, size}`.
 * @throws BodyTooDeepError past `MAX_BODY_DEPTH` levels.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value, '', 0));
}

function normalise(value: unknown, path: string, depth: number): unknown {
  if (value instanceof Uint8Array) {
    return { sha256: createHash('sha256').update(value).digest('hex'), size: value.byteLength };
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_BODY_DEPTH) throw new BodyTooDeepError(path || '(body)');
  if (Array.isArray(value)) {
    return value.map((v, i) => (v === undefined ? null : normalise(v, `${path}[${i}]`, depth + 1)));
  }
  // Null prototype: a "__proto__" key (possible in free-form records) must stay data, not a prototype.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = normalise(v, path ? `${path}.${key}` : key, depth + 1);
  }
  return out;
}

/**
 * sha256 hex of `tool`, the route and the canonical body.
 * @throws BodyTooDeepError when the body is nested deeper than `MAX_BODY_DEPTH`.
 */
export function fingerprint(tool: string, req: { route: string; body: unknown }): string {
  return createHash('sha256')
    .update(tool)
    .update('\n')
    .update(req.route)
    .update('\n')
    .update(canonicalJson(req.body))
    .digest('hex');
}

/**
 * The fingerprint genplat-mcp 0.1 wrote into its ledger: sha256 of the tool name and the canonical JSON of its
 * ARGUMENTS (strings trimmed, keys sorted, guard arguments removed), where today's covers the exact request.
 * Records imported from a 0.1 ledger carry it, so the duplicate guard also matches a call against this form:
 * an identical call to a 0.1 submission whose outcome is unknown is refused, not resent (issue 19).
 */
export function fingerprint01(tool: string, args: Record<string, unknown>): string {
  const trimmed = (v: unknown): unknown => {
    if (typeof v === 'string') return v.trim();
    if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : trimmed(x)));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = Object.create(null);
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined && k !== 'confirmation_token' && k !== 'allow_duplicate') out[k] = trimmed(x);
      }
      return out;
    }
    return v;
  };
  return createHash('sha256')
    .update(tool)
    .update('\n')
    .update(JSON.stringify(trimmed(args)))
    .digest('hex');
}
