/**
 * The platform request as an HTTP client span (issue 30 item 1; OpenTelemetry HTTP client conventions): one span per
 * attempt, named `{method} {route}`, with the route template (`/enterprise/status/{request_id}`, never the path with
 * its ids or the query), the host, the attempt number and the status code; only inside a traced call. Never the URL
 * with its query, a header (the key rides in `X-Api-Key`), the body or a file.
 */
import { ApiError } from '../errors.js';
import { annotateSpan, inSpan } from '../telemetry/traces.js';

export interface TracedRequest {
  method: string;
  path: string;
  /** The path with its ids as `{names}`; the path itself when it carries none. */
  route?: string | undefined;
}

/** `error.type` of a failed attempt: the status code when the platform answered, else the failure's class. */
function failureType(err: unknown): string {
  if (err instanceof ApiError) return String(err.status);
  return err instanceof Error ? err.name : '_OTHER';
}

export function inRequestSpan<T>(spec: TracedRequest, host: string, attempt: number, send: () => Promise<T>) {
  const route = spec.route ?? spec.path;
  return inSpan(
    `${spec.method} ${route}`,
    {
      'http.request.method': spec.method,
      'url.template': route,
      'server.address': host,
      'http.request.resend_count': attempt > 0 ? attempt : undefined,
    },
    async (mark) => {
      try {
        return await send();
      } catch (err) {
        mark.fail(failureType(err));
        throw err;
      }
    },
    // The server's own background reads (following open jobs for events, tasks and listen streams) have no caller:
    // a root span per poll would bury the traces people look for (the metrics count those requests).
    { kind: 'client', requireParent: true },
  );
}

/** What only the attempt itself knows (inside `send`): the status and the platform's request id. */
export function annotateResponse(status: number, requestId: string): void {
  annotateSpan({ 'http.response.status_code': status, 'genplat.platform.request_id': requestId });
}
