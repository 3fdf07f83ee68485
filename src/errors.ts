/**
 * The error family. Every error a tool can meet is one of these, so `toolError()` can turn it into an
 * `isError` result with a user-facing message and a next step. Messages never contain the API key.
 */

/** Base of every error raised by our code about the platform or the user's input. */
export class GenplatError extends Error {
  /** One sentence telling the agent what to do next. */
  readonly nextStep: string;
  constructor(message: string, nextStep: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.nextStep = nextStep;
  }
}

/** Configuration is wrong; raised at start (one line per problem) or when a feature needs an unset variable. */
export class ConfigurationError extends GenplatError {
  readonly problems: string[];
  readonly variable: string | undefined;
  constructor(problems: string[], variable?: string) {
    super(
      problems.join('\n'),
      variable ? `Ask the operator to set ${variable}.` : 'Fix the configuration and restart.',
    );
    this.problems = problems;
    this.variable = variable;
  }
}

/** Bad input, caught locally: nothing was sent and nothing was charged. */
export class UserInputError extends GenplatError {
  readonly field: string;
  readonly rule: string;
  constructor(
    field: string,
    rule: string,
    nextStep = 'Fix this argument and call again; nothing was sent or charged.',
  ) {
    super(`${field}: ${rule}`, nextStep);
    this.field = field;
    this.rule = rule;
  }
}

/** Anything that came from talking to the platform. `requestId` is the `x-request-id` header when one was seen. */
/**
 * A local file could not be staged for the platform (src/files/staging.ts), after admission and before the POST:
 * nothing was sent. Only the SDK error's name is quoted (`NoSuchBucket`, `AccessDenied`): an S3 error message
 * may carry a bucket, a key id or an endpoint, which the agent need not see.
 */
export class StagingError extends GenplatError {
  constructor(cause: unknown) {
    const name = cause instanceof Error && /^[A-Za-z]{1,64}$/.test(cause.name) ? cause.name : 'error';
    super(
      `The local file could not be staged for the platform (${name}); nothing was sent and nothing was charged.`,
      'Check the staging bucket settings (GENPLAT_STAGING_*, docs/files.md) and its credentials, then call again.',
    );
  }
}

export class PlatformError extends GenplatError {
  readonly requestId: string | undefined;
  constructor(message: string, nextStep: string, requestId: string | undefined, options?: { cause?: unknown }) {
    super(message, nextStep, options);
    this.requestId = requestId;
  }
}

/** The platform answered with a non-2xx status. */
export class ApiError extends PlatformError {
  readonly status: number;
  /** The parsed error body (already free of secrets: the platform never echoes the key). */
  readonly body: unknown;
  /** The platform's own message, when the body had one. */
  readonly platformMessage: string | undefined;
  constructor(
    status: number,
    platformMessage: string | undefined,
    body: unknown,
    requestId: string | undefined,
    message: string,
    nextStep: string,
  ) {
    super(message, nextStep, requestId);
    this.status = status;
    this.body = body;
    this.platformMessage = platformMessage;
  }

  /** Picks the subclass for a status (and, for 400, spots the insufficient-credits wording). */
  static fromResponse(status: number, body: unknown, requestId: string | undefined): ApiError {
    const pm = extractMessage(body);
    const said = pm ? ` The platform said: "${pm}".` : '';
    if ((status === 400 || status === 402) && pm && /credit|balance|insufficient/i.test(pm)) {
      return new InsufficientCreditsError(status, pm, body, requestId);
    }
    switch (status) {
      case 400:
      case 422:
        return new BadRequestError(
          status,
          pm,
          body,
          requestId,
          `The platform rejected the request as invalid.${said}`,
          'Fix the input and call again; no job was created.',
        );
      case 401:
        return new AuthenticationError(
          401,
          pm,
          body,
          requestId,
          'The platform did not accept the API key (401 not authenticated).',
          'Check GENPLAT_API_KEY: it may be missing, revoked or inactive.',
        );
      case 402:
        return new InsufficientCreditsError(402, pm, body, requestId);
      case 403:
        return new PermissionDeniedError(
          403,
          pm,
          body,
          requestId,
          `The account's plan does not allow this (403).${said}`,
          'Ask the account owner to enable this feature or subscription; no job was created.',
        );
      case 404:
        return new NotFoundError(
          404,
          pm,
          body,
          requestId,
          `Not found (404).${said}`,
          'Check the id against the matching list tool (list_avatars, list_voices, list_templates, list_jobs).',
        );
      case 408:
        return new ServerError(
          408,
          pm,
          body,
          requestId,
          'The platform timed out answering (408).',
          'Try the read again later.',
        );
      case 429:
        return new RateLimitError(pm, body, requestId, undefined);
      case 503:
        return new ServiceUnavailableError(pm, body, requestId);
      default:
        if (status >= 500) {
          return new ServerError(
            status,
            pm,
            body,
            requestId,
            `The platform had a server error (${status}).${said}`,
            'Try again later; quote the request id to support if it persists.',
          );
        }
        return new ApiError(
          status,
          pm,
          body,
          requestId,
          `The platform answered ${status}.${said}`,
          'Check the input and try again.',
        );
    }
  }
}

export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ServerError extends ApiError {}

/** 400 or 402 with an insufficient-credits message, depending on the generation path. */
export class InsufficientCreditsError extends ApiError {
  constructor(status: number, pm: string | undefined, body: unknown, requestId: string | undefined) {
    super(
      status,
      pm,
      body,
      requestId,
      'Not enough credits for this job; no job was created.',
      'Top up credits in the platform account, or choose a cheaper option.',
    );
  }
}

/** 429. `retryAfterMs` comes from the `Retry-After` header when present. */
export class RateLimitError extends ApiError {
  readonly retryAfterMs: number | undefined;
  constructor(pm: string | undefined, body: unknown, requestId: string | undefined, retryAfterMs: number | undefined) {
    super(
      429,
      pm,
      body,
      requestId,
      'The platform is rate-limiting requests (429).',
      retryAfterMs ? `Wait ${Math.ceil(retryAfterMs / 1000)} s and try again.` : 'Wait a little and try again.',
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** 503: a model is temporarily unavailable. */
export class ServiceUnavailableError extends ServerError {
  constructor(pm: string | undefined, body: unknown, requestId: string | undefined) {
    super(
      503,
      pm,
      body,
      requestId,
      `The platform or this model is temporarily unavailable (503).${pm ? ` The platform said: "${pm}".` : ''}`,
      'Try again in a few minutes.',
    );
  }
}

/** No usable answer: refused, reset, DNS failure. `sent` says whether the request may have reached the server. */
export class ConnectionError extends PlatformError {
  readonly sent: boolean;
  constructor(detail: string, sent: boolean, requestId?: string, options?: { cause?: unknown }) {
    super(
      `Could not reach the platform (${detail}).`,
      'Check GENPLAT_BASE_URL and the network, then try again.',
      requestId,
      options,
    );
    this.sent = sent;
  }
}

/** The per-request timeout fired after the request was sent. */
export class TimeoutError extends PlatformError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, requestId?: string) {
    super(
      `The platform did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      'Try the read again later.',
      requestId,
    );
    this.timeoutMs = timeoutMs;
  }
}

/** A 2xx whose body was not JSON or did not match the expected shape. */
export class MalformedResponseError extends PlatformError {
  /** True when the body was not JSON at all (a transport glitch a GET may retry), false for a shape mismatch. */
  readonly unparseable: boolean;
  constructor(detail: string, requestId: string | undefined, unparseable = false) {
    super(
      `The platform sent a response we could not read (${detail}).`,
      'Try the read again later; quote the request id to support if it persists.',
      requestId,
    );
    this.unparseable = unparseable;
  }
}

/**
 * A job-starting POST may or may not have been accepted (timeout, reset, 5xx, unreadable 2xx, or the
 * platform's own `submission_unknown: true`). It is never retried; the ledger records it as `unknown`
 * and an identical resubmission is refused until the user says `allow_duplicate: true`.
 */
export class SubmissionUnknownError extends PlatformError {
  constructor(cause: PlatformError | undefined, requestId: string | undefined) {
    super(
      `The submission may or may not have been accepted by the platform${cause ? ` (${cause.message})` : ''}. It was not retried, so at most one job was started.`,
      `Do not resubmit blindly: check the platform's project list${requestId ? ` or give support the request id ${requestId}` : ''}. Reserved credits stay held until it resolves. To submit again anyway, call with allow_duplicate: true.`,
      requestId ?? cause?.requestId,
      { cause },
    );
  }
}

/** True when a POST that failed this way may still have started a job. */
export function mayHaveBeenAccepted(err: unknown): boolean {
  if (err instanceof SubmissionUnknownError) return true;
  if (err instanceof TimeoutError || err instanceof MalformedResponseError) return true;
  if (err instanceof ConnectionError) return err.sent;
  // Spec, Errors rule 2: a 5xx can happen after a job was accepted. 503 included: we cannot tell.
  if (err instanceof ApiError) return err.status >= 500 || err.status === 408;
  return true; // unknown failure after sending: assume the worst, never double-charge
}

/** Pulls a human message out of the envelope (`message`), or a flat/enterprise body (`error`, `error.message`, `detail`). */
export function extractMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 300) || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['message', 'error', 'detail']) {
    const v = b[key];
    if (typeof v === 'string' && v) return v.slice(0, 300);
    if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).message === 'string') {
      return ((v as Record<string, unknown>).message as string).slice(0, 300);
    }
  }
  return undefined;
}
