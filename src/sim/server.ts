/**
 * The simulator's HTTP layer. Everything cross-cutting happens here once: media files, the `/api` prefix,
 * `x-request-id`, faults, the request log, auth, body parsing, billing-control rejection, subscription and
 * balance checks for billable routes, envelopes (with extra unknown fields) and error bodies.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AccountStore } from './accounts.js';
import { asBody, rejectBillingControls } from './check.js';
import { AFTER_HANDLER_KINDS, CHARGE_KINDS, type FaultSpec, type FaultStore } from './faults.js';
import { isMediaKind, MEDIA_CONTENT_TYPES, mediaBytes } from './media.js';
import { overchargeAnswer, overchargeContext } from './overcharge.js';
import { type LogEntry, loggableHeaders, loggableQuery, type RequestLog } from './request-log.js';
import { type FormValue, type SimContext, SimHttpError, type SimRequest, type SimRoute } from './types.js';

/** The platform prefix: the base URL already ends with it (spec convention 1). */
export const API_PREFIX = '/api';

/** Largest request body read: two 10 MiB custom-avatar files plus multipart overhead fit easily. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface ServerDeps {
  routes: SimRoute[];
  accounts: AccountStore;
  faults: FaultStore;
  log: RequestLog;
  /** Filled once the server listens (the context needs the origin). */
  ctx(): SimContext;
  onLog?: (e: LogEntry) => void;
  /**
   * After every handler ran, before its answer leaves: a saved sandbox writes its state here, so a job whose
   * POST was answered is on disk even if the process is killed right after (persist.ts).
   */
  afterRun?: (method: string) => void;
  /** `fetchMedia` option: fetch a billable POST's loopback media URLs before its handler (media-fetch.ts). */
  fetchMedia?: (json: unknown) => Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  style: 'envelope' | 'flat';
}

interface ParsedBody {
  json: unknown;
  form: Map<string, FormValue> | undefined;
  logBody: unknown;
  contentType: string;
  /** Set when the body could not be used; answered as a 400 once the route (and its style) is known. */
  problem?: string;
}

export interface SimHandler {
  listener: RequestListener;
  /** Cancels held ('delay') responses. */
  close(): void;
}

export function createHandler(deps: ServerDeps): SimHandler {
  const held = new Set<NodeJS.Timeout>();

  const listener: RequestListener = (req, res) => {
    handle(req, res).catch((err) => {
      // A client that hung up mid-upload is not a simulator error.
      if (req.destroyed && res.destroyed) return;
      process.stderr.write(`[genplat-sim] unexpected error: ${String(err)}\n`);
      if (!res.headersSent) send(res, 500, { status: false, message: 'internal server error' }, {});
      else res.destroy();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/media/')) {
      serveMedia(req, res, url.pathname);
      return;
    }
    if (url.pathname !== API_PREFIX && !url.pathname.startsWith(`${API_PREFIX}/`)) {
      send(res, 404, { status: false, message: 'not found' }, { 'x-request-id': pickRequestId(undefined) });
      return;
    }
    const path = url.pathname.slice(API_PREFIX.length) || '/';
    const method = (req.method ?? 'GET').toUpperCase();
    const requestId = pickRequestId(req.headers['x-request-id']);
    const raw = await readBody(req);
    const parsed = await parseBody(req, raw);
    const entry: LogEntry = {
      at: Date.now(),
      method,
      path,
      query: loggableQuery(url.searchParams),
      headers: loggableHeaders(req.headers),
      body: parsed.logBody,
      status: 0,
      requestId,
    };
    const finish = (status: number) => {
      entry.status = status;
      deps.log.push(entry);
      deps.onLog?.(entry);
    };
    const baseHeaders = { 'x-request-id': requestId };
    const fault = deps.faults.take(method, path);
    const style = findRoute(path, method)?.route.style ?? 'envelope';

    if (fault && !AFTER_HANDLER_KINDS.has(fault.kind) && !CHARGE_KINDS.has(fault.kind)) {
      const answer = beforeHandlerFault(fault, style);
      if (!answer) {
        finish(0);
        req.socket.destroy();
        return;
      }
      finish(answer.status);
      send(res, answer.status, decorate(answer.body, requestId), { ...baseHeaders, ...answer.headers });
      return;
    }

    const overcharge = fault?.kind === 'overcharge' ? fault.chargeCredits : undefined;
    const answer = await run(req, url, path, method, requestId, parsed, overcharge);
    deps.afterRun?.(method);

    if (fault) {
      switch (fault.kind) {
        case 'reset_after_accept':
          finish(0);
          req.socket.destroy();
          return;
        case 'server_error_after_accept': {
          const body = errorBody(style, 'internal server error', { submission_unknown: true });
          finish(500);
          send(res, 500, decorate(body, requestId), baseHeaders);
          return;
        }
        case 'malformed_json': {
          const text = JSON.stringify(decorate(answer.body, requestId));
          finish(200);
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...baseHeaders });
          res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
          return;
        }
        case 'delay':
          await new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              held.delete(t);
              resolve();
            }, fault.delayMs ?? 0);
            held.add(t);
          });
          if (res.destroyed || req.socket.destroyed) {
            finish(0);
            return;
          }
          break;
        default:
          break;
      }
    }
    finish(answer.status);
    send(res, answer.status, decorate(answer.body, requestId), { ...baseHeaders, ...answer.headers });
  }

  /** Auth, routing, body checks, billing checks and the handler, as one answer in the route's style. */
  async function run(
    req: IncomingMessage,
    url: URL,
    path: string,
    method: string,
    requestId: string,
    parsed: ParsedBody,
    overcharge?: number,
  ): Promise<Answer> {
    const found = findRoute(path, method);
    const style = found?.route.style ?? 'envelope';
    const fail = (e: SimHttpError): Answer => {
      // Auth rule 4 gives the 401 body as `{status: false, message}` for every endpoint, flat ones included.
      const body =
        e.status === 401
          ? { status: false, ...(errorBody(style, e.message, e.extra) as object) }
          : errorBody(style, e.message, e.extra);
      return { status: e.status, body, style };
    };
    try {
      const account = authenticate(req, url);
      if (!found) throw new SimHttpError(404, 'not found');
      if (found.methodMismatch) throw new SimHttpError(405, `method ${method} not allowed on ${path}`);
      const { route, params } = found;
      if (route.billable) {
        if (account.subscription !== 'paid') {
          throw new SimHttpError(
            403,
            'subscription does not allow generation: an active paid subscription is required',
          );
        }
        if (account.credits <= 0) throw new SimHttpError(route.insufficientStatus ?? 402, 'insufficient credits');
      }
      if (method === 'POST') {
        if (parsed.problem) throw new SimHttpError(400, parsed.problem);
        if (parsed.form) rejectBillingControls(Object.fromEntries(parsed.form));
        else if (parsed.json !== undefined) rejectBillingControls(asBody(parsed.json));
      }
      if (route.billable && method === 'POST' && deps.fetchMedia && parsed.json !== undefined) {
        await deps.fetchMedia(parsed.json);
      }
      const simReq: SimRequest = {
        method: method as 'GET' | 'POST',
        path,
        params,
        query: url.searchParams,
        headers: flatHeaders(req),
        json: parsed.json,
        form: parsed.form,
        account,
        requestId,
      };
      const ctx = overcharge === undefined ? deps.ctx() : overchargeContext(deps.ctx(), overcharge);
      const out = await route.handle(simReq, ctx);
      const body = style === 'envelope' ? asEnvelope(out.body) : out.body;
      if (overcharge !== undefined && out.status < 300) overchargeAnswer(body, overcharge);
      return { status: out.status, body, headers: out.headers, style };
    } catch (err) {
      if (err instanceof SimHttpError) return fail(err);
      process.stderr.write(`[genplat-sim] handler error on ${method} ${path}: ${String(err)}\n`);
      return fail(new SimHttpError(500, 'internal server error'));
    }
  }

  /** Spec auth rules 1, 2 and 4: only the X-Api-Key header; a key in the URL is refused outright. */
  function authenticate(req: IncomingMessage, url: URL) {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? undefined : header?.trim();
    const keyInQuery = [...url.searchParams.keys()].some((k) => /^api[_-]?key$/i.test(k));
    const account = key && !keyInQuery ? deps.accounts.get(key) : undefined;
    if (!account || account.subscription === 'inactive') throw new SimHttpError(401, 'not authenticated');
    return account;
  }

  function findRoute(
    path: string,
    method: string,
  ): { route: SimRoute; params: Record<string, string>; methodMismatch?: boolean } | undefined {
    let mismatch: { route: SimRoute; params: Record<string, string>; methodMismatch: true } | undefined;
    for (const route of deps.routes) {
      const params = matchPath(route, path);
      if (!params) continue;
      if (route.method === method) return { route, params };
      mismatch ??= { route, params, methodMismatch: true };
    }
    return mismatch;
  }

  function matchPath(route: SimRoute, path: string): Record<string, string> | undefined {
    const p = typeof route.path === 'function' ? route.path(deps.ctx()) : route.path;
    if (typeof p === 'string') return p === path ? {} : undefined;
    const anchored = new RegExp(`^(?:${p.source})$`, p.flags.replace(/[gy]/g, ''));
    const m = anchored.exec(path);
    if (!m) return undefined;
    // Path parameters arrive percent-encoded, as any HTTP server sees them; ids are compared decoded.
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.groups ?? {})) {
      try {
        params[k] = decodeURIComponent(v);
      } catch {
        params[k] = v;
      }
    }
    return params;
  }

  return {
    listener,
    close() {
      for (const t of held) clearTimeout(t);
      held.clear();
    },
  };
}

function beforeHandlerFault(fault: FaultSpec, style: 'envelope' | 'flat'): Answer | undefined {
  switch (fault.kind) {
    case 'reset':
      return undefined;
    case 'rate_limit':
      return {
        status: 429,
        body: errorBody(style, 'too many requests'),
        headers: { 'retry-after': String(fault.retryAfterS ?? 1) },
        style,
      };
    case 'unavailable':
      return { status: 503, body: errorBody(style, 'model temporarily unavailable'), style };
    default:
      return { status: 500, body: errorBody(style, 'internal server error'), style };
  }
}

export function errorBody(style: 'envelope' | 'flat', message: string, extra: Record<string, unknown> = {}): unknown {
  return style === 'envelope' ? { status: false, message, ...extra } : { error: message, message, ...extra };
}

/** Handlers return the `data` payload; a body already shaped as an envelope is kept. */
function asEnvelope(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (typeof b.status === 'boolean' && 'data' in b) return b;
  }
  return { status: true, message: 'ok', data: body };
}

/** Extra unknown field on every JSON object answered: clients must tolerate additional fields (convention 8). */
function decorate(body: unknown, requestId: string): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...body, trace: { x_request_id: requestId, served_by: 'genplat-sim', region: 'loopback' } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function pickRequestId(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v && /^[\w.:-]{1,128}$/.test(v)) return v;
  return `req_${randomBytes(10).toString('hex')}`;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    // Keep draining so the client gets an answer rather than a stalled upload.
    if (!tooLarge) chunks.push(chunk as Buffer);
  }
  return tooLarge ? 'too_large' : Buffer.concat(chunks);
}

async function parseBody(req: IncomingMessage, raw: Buffer | 'too_large'): Promise<ParsedBody> {
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  const none: ParsedBody = { json: undefined, form: undefined, logBody: undefined, contentType };
  if (raw === 'too_large') return { ...none, problem: `body: larger than ${MAX_BODY_BYTES} bytes` };
  if (raw.length === 0) return none;
  if (contentType.startsWith('multipart/form-data')) {
    try {
      const fd = await new Response(raw, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const form = new Map<string, FormValue>();
      const logBody: Record<string, unknown> = {};
      for (const [name, value] of fd) {
        if (form.has(name)) continue;
        if (typeof value === 'string') {
          form.set(name, value);
          logBody[name] = value;
        } else {
          const file = value as File;
          const v = {
            filename: file.name,
            contentType: file.type,
            size: file.size,
            bytes: new Uint8Array(await file.arrayBuffer()),
          };
          form.set(name, v);
          // The digest lets tests prove the bytes sent are the bytes the user consented to (fingerprint.ts).
          const sha256 = createHash('sha256').update(v.bytes).digest('hex');
          logBody[name] = { filename: v.filename, size: v.size, contentType: v.contentType, sha256 };
        }
      }
      return { ...none, form, logBody };
    } catch {
      return { ...none, logBody: '[unparseable multipart body]', problem: 'body: invalid multipart/form-data' };
    }
  }
  const text = raw.toString('utf8');
  if (contentType.startsWith('application/json') || contentType.endsWith('+json')) {
    try {
      const json: unknown = JSON.parse(text);
      return { ...none, json, logBody: json };
    } catch {
      return { ...none, logBody: text.slice(0, 2000), problem: 'body: invalid JSON' };
    }
  }
  return {
    ...none,
    logBody: text.slice(0, 2000),
    problem: 'content-type: must be application/json (multipart/form-data for custom avatars)',
  };
}

function serveMedia(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  const ext = pathname.slice(pathname.lastIndexOf('.') + 1);
  const method = req.method ?? 'GET';
  if ((method !== 'GET' && method !== 'HEAD') || !isMediaKind(ext) || pathname.includes('/', '/media/'.length)) {
    send(res, 404, { status: false, message: 'not found' }, { 'x-request-id': pickRequestId(undefined) });
    return;
  }
  const bytes = mediaBytes(ext);
  res.writeHead(200, {
    'x-request-id': pickRequestId(req.headers['x-request-id']),
    'content-type': MEDIA_CONTENT_TYPES[ext],
    'content-length': String(bytes.length),
    'cache-control': 'public, max-age=3600',
  });
  res.end(method === 'HEAD' ? undefined : bytes);
}
