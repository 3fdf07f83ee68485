/** The log of every request under the API prefix, so tests can count what a client actually sent. */

export interface LogEntry {
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased request headers; `x-api-key` removed and replaced by `x-api-key-present: 'yes' | 'no'`. */
  headers: Record<string, string>;
  /** Parsed JSON, or for multipart `{field: string | {filename, size, contentType, sha256}}`, or the raw text. */
  body: unknown;
  /** The status answered; 0 when the connection was reset without an answer. */
  status: number;
  requestId: string;
}

export class RequestLog {
  private list: LogEntry[] = [];

  push(e: LogEntry): void {
    this.list.push(e);
  }

  entries(): LogEntry[] {
    return [...this.list];
  }

  count(f: { method?: string; path?: string | RegExp } = {}): number {
    return this.list.filter(
      (e) =>
        (f.method === undefined || e.method === f.method) &&
        (f.path === undefined ||
          (typeof f.path === 'string' ? e.path === f.path : new RegExp(f.path.source).test(e.path))),
    ).length;
  }

  clear(): void {
    this.list = [];
  }
}

/** Headers as logged: never the key (nor any other credential a confused client might send). */
export function loggableHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    if (n === 'x-api-key') continue;
    out[n] = n === 'authorization' || n === 'cookie' ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  out['x-api-key-present'] = raw['x-api-key'] ? 'yes' : 'no';
  return out;
}

const SECRET_QUERY = /^(api[_-]?key|key|token|access_token)$/i;

export function loggableQuery(q: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of q) out[k] = SECRET_QUERY.test(k) ? '[redacted]' : v;
  return out;
}
