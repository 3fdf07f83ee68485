/**
 * Turns zod issues on a model's params into `params.<path>: <rule>` errors, so the agent learns which field
 * broke which rule before anything is sent (design.md invariant 4).
 */
import type { z } from 'zod';
import { UserInputError } from '../../../src/errors.js';
import { localRefFormProblem, mediaKindOfField, parseMediaRef } from '../../../src/files/media-ref.js';
import { publicMediaUrlProblem } from '../../../src/guards/url.js';
import { isUrlShaped } from '../../../src/guards/url-shaped.js';
import { checkCounts } from './counts.js';
import { BILLING_CONTROL_FIELDS, EMPTY_RULE, type ModelSpec } from './spec.js';

type Issue = z.core.$ZodIssue;

const MAX_LISTED = 3;

const FIX_PARAMS = 'Fix params and call again (rules: read genplat://models/{model}); nothing was sent or charged.';

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
};

function joinPath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/**
 * Unions without their own message say only "Invalid input": report the branch that got furthest (the one
 * not failing at its root on the type).
 */
function unwrapUnion(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0 || issue.message !== 'Invalid input') return issue;
  const deeper = issue.errors.find((branch) => branch.some((i) => i.path.length > 0 || i.code !== 'invalid_type'));
  const first = deeper?.[0];
  if (!first) return { ...issue, message: 'matches none of the allowed forms (see the model schema)' } as Issue;
  return unwrapUnion({ ...first, path: [...issue.path, ...first.path] } as Issue);
}

/** True when nothing is at `path` in `data` (zod 4 issues do not carry the input, so "required" is read here). */
function absent(data: unknown, path: readonly PropertyKey[]): boolean {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return true;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur === undefined;
}

/** One issue → `{path, rule}`; `path` is under `params`, `data` is the params object the issue is about. */
export function describeIssue(raw: Issue, data: unknown): { path: string; rule: string } {
  const issue = unwrapUnion(raw);
  const base = `params${joinPath(issue.path)}`;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    const rule =
      issue.path.length === 0
        ? `unknown parameter: this model is strict (rejected: ${keys.join(', ')})`
        : `unknown field (rejected: ${keys.join(', ')})`;
    return { path: `${base}.${keys[0]}`, rule };
  }
  if (issue.code === 'invalid_type' && issue.expected !== 'never' && absent(data, issue.path)) {
    return { path: base, rule: 'is required' };
  }
  if (issue.code === 'invalid_type' && !issue.message.startsWith('Invalid input')) {
    return { path: base, rule: issue.message };
  }
  if (issue.code === 'invalid_type')
    return { path: base, rule: `must be ${ARTICLE[issue.expected] ?? issue.expected}` };
  return { path: base, rule: issue.message };
}

/** Keys the platform could read as a callback target; only the top-level webhook_url is allow-listed. */
const CALLBACK_KEY = /webhook|callback/i;
/** Keys that hold media by URL (image_url, image_urls, mask_url…). */
const URL_KEY = /url/i;

interface UrlScan {
  /** Top-level params keys where the spec allows base64 data URIs (`ModelSpec.dataUriFields`). */
  dataUriFields: readonly string[];
}

/**
 * Invariant 7 inside free-form params: models without a published schema are passed through and published
 * ones are mostly loose, so any field at any depth could carry a URL the platform fetches. Every URL-shaped
 * string (as a WHATWG parser reads it after trimming: `http:/h`, `http:\\h`, ` HTTP://h`, `ht\ttp://h`; see
 * src/guards/url-shaped.ts) and every string under a `*url*` key must pass the public-media-URL guard on its
 * raw value, so what is sent is what was checked. Data URIs only at the spec's data-URI fields;
 * callback-named keys are refused so the allow-list cannot be sidestepped.
 * @throws UserInputError naming `params.<path>`
 */
function checkParamUrls(value: unknown, path: readonly PropertyKey[], urlKey: boolean, scan: UrlScan): void {
  if (typeof value === 'string') {
    if (!urlKey && !isUrlShaped(value)) return;
    // A local file (issue 22) in a media-named field: its form here, its disk checks in the pipeline (src/files/).
    const field = [...path].reverse().find((p) => typeof p === 'string');
    const ref = parseMediaRef(value);
    if (ref.type !== 'url' && !isUrlShaped(value) && field !== undefined && mediaKindOfField(String(field))) {
      const local = localRefFormProblem(ref);
      if (local) throw new UserInputError(`params${joinPath(path)}`, local);
      return;
    }
    const key = path.length === 1 ? String(path[0]) : undefined;
    const allowDataUri = key !== undefined && scan.dataUriFields.includes(key);
    const problem = publicMediaUrlProblem(value, { allowDataUri });
    if (problem) throw new UserInputError(`params${joinPath(path)}`, problem);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      checkParamUrls(v, [...path, i], urlKey, scan);
    });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) {
    if (CALLBACK_KEY.test(key)) {
      throw new UserInputError(
        `params${joinPath([...path, key])}`,
        'callback URLs go in the top-level webhook_url (checked against the operator allow-list), not in params',
      );
    }
    checkParamUrls(v, [...path, key], URL_KEY.test(key), scan);
  }
}

/**
 * An empty or blank string anywhere in a published model's params (issue 20): declared fields refuse it in their
 * schema (`text()`), and a loose model passes undeclared keys through, so this walk covers those too.
 * @throws UserInputError naming `params.<path>`
 */
function checkNoEmptyStrings(value: unknown, path: readonly PropertyKey[]): void {
  if (typeof value === 'string') {
    if (value.trim() === '') throw new UserInputError(`params${joinPath(path)}`, EMPTY_RULE, FIX_PARAMS);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      checkNoEmptyStrings(v, [...path, i]);
    });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) checkNoEmptyStrings(v, [...path, key]);
}

/**
 * Validates params against a spec (or, without one, the minimal pass-through rules).
 * @throws UserInputError naming the first failing field, listing up to three problems.
 */
export function checkParams(spec: ModelSpec | undefined, params: Record<string, unknown>): void {
  // Convention 10 holds for every model, known or not.
  const control = BILLING_CONTROL_FIELDS.find((f) => f in params);
  if (control) {
    throw new UserInputError(
      `params.${control}`,
      'must not be sent: the API key identifies the account and billing is server-side',
    );
  }
  checkCounts(params);
  checkParamUrls(params, [], false, { dataUriFields: spec?.dataUriFields ?? [] });
  if (!spec) {
    if (Object.keys(params).length === 0) throw new UserInputError('params', 'must not be empty');
    return;
  }
  const result = spec.params.safeParse(params);
  if (result.success) {
    checkNoEmptyStrings(params, []);
    return;
  }
  const problems: { path: string; rule: string }[] = [];
  for (const issue of result.error.issues) {
    const p = describeIssue(issue, params);
    // One rule per field: a value of the wrong type can also trip that field's length checks.
    if (!problems.some((q) => q.path === p.path)) problems.push(p);
  }
  const first = problems[0]!;
  const more = problems.slice(1, MAX_LISTED).map((p) => `${p.path}: ${p.rule}`);
  const rule = more.length > 0 ? `${first.rule} (also ${more.join('; ')})` : first.rule;
  throw new UserInputError(first.path, rule, FIX_PARAMS);
}
