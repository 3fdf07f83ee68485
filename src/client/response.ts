/**
 * Reads one HTTP answer into data or an error of our family: JSON parsing, the envelope's `status:false`,
 * the platform's `submission_unknown` flag, status → error class, and response-schema validation.
 */
import type { z } from 'zod';
import { ApiError, MalformedResponseError, RateLimitError, SubmissionUnknownError } from '../errors.js';
import { redact } from '../log.js';
import { parseRetryAfter } from './retry.js';
import { envelope } from './schemas.js';

export interface RawAnswer {
  status: number;
  /** The response body as text. */
  text: string;
  retryAfter: string | null;
  requestId: string;
}

export interface Expectation<T> {
  schema: z.ZodType<T>;
  /** `{status, message?, data}` (most endpoints) or a flat object (enterprise). */
  envelope: boolean;
  /** A job-starting POST: the platform's `submission_unknown: true` is honoured only here. */
  submit: boolean;
}

const NOT_JSON = Symbol('not-json');

function parseJson(text: string): unknown {
  if (text.trim() === '') return NOT_JSON;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The platform never echoes the key, but error bodies end up in messages and the ledger, so any
 * registered secret is scrubbed from them anyway (invariant 5 does not rest on the server's manners).
 */
function scrub(body: unknown): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(redact(JSON.stringify(body))) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A short, path-based summary of a schema failure: never the body itself (it may be large or personal). */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((i) => {
    const path = i.path.length > 0 ? i.path.map(String).join('.') : '(root)';
    return `${path}: ${i.message}`;
  });
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return `unexpected shape at ${parts.join('; ')}${more}`.slice(0, 300);
}

/** Builds the error for a non-2xx answer (or an envelope's `status:false`, which we treat as 400). */
function apiError(status: number, body: unknown, answer: RawAnswer): ApiError {
  if (status === 429) {
    const base = ApiError.fromResponse(429, body, answer.requestId);
    return new RateLimitError(base.platformMessage, body, answer.requestId, parseRetryAfter(answer.retryAfter));
  }
  return ApiError.fromResponse(status, body, answer.requestId);
}

/**
 * @returns the validated data (the envelope's `data`, or the flat body).
 * @throws SubmissionUnknownError when a submit POST's body says `submission_unknown: true` (any status).
 * @throws ApiError subclass for a non-2xx status or an envelope with `status: false`.
 * @throws MalformedResponseError for a 2xx that is not JSON (`unparseable`) or not the expected shape.
 */
export function interpret<T>(answer: RawAnswer, expect: Expectation<T>): T {
  const parsed = parseJson(answer.text);
  const ok = answer.status >= 200 && answer.status < 300;
  // A non-JSON error page (a proxy's HTML 502) is dropped: its status says enough, its text says nothing useful.
  const body = parsed === NOT_JSON ? undefined : scrub(parsed);

  if (expect.submit && isRecord(body) && body.submission_unknown === true) {
    const cause = ok ? undefined : apiError(answer.status, body, answer);
    throw new SubmissionUnknownError(cause, answer.requestId);
  }
  if (!ok) throw apiError(answer.status, body, answer);
  if (parsed === NOT_JSON) {
    throw new MalformedResponseError(`HTTP ${answer.status} with a body that is not JSON`, answer.requestId, true);
  }

  if (!expect.envelope) return validate(expect.schema, body, answer.requestId);
  // Spec, conventions 5-6: the outer `status` describes the request; `false` on a 2xx is a refusal.
  if (isRecord(body) && body.status === false) throw apiError(400, body, answer);
  return validate(envelope(expect.schema), body, answer.requestId).data;
}

function validate<S extends z.ZodType>(schema: S, payload: unknown, requestId: string): z.output<S> {
  const result = schema.safeParse(payload);
  if (!result.success) throw new MalformedResponseError(describeIssues(result.error), requestId);
  return result.data;
}
