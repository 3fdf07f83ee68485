/**
 * Where events go (issue 29 item 1, docs/events.md): operator config only, never a tool argument.
 * GENPLAT_EVENTS_URL + GENPLAT_EVENTS_SECRET = one endpoint for every event; GENPLAT_EVENTS_ENDPOINTS = a JSON or
 * YAML file listing endpoints `[{url, secret, callers?, types?}]`. Every problem names the field and the rule;
 * a secret never appears in one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EVENT_TYPES } from '../store/event-types.js';
import { eventsWords as W } from './wording.js';

export interface EventEndpoint {
  url: string;
  /** `whsec_<base64>` (registered as a secret at start). */
  secret: string;
  /** Owner ids or prefixes ending in `*` (`token:bot:*`, `slack:T1:*`); undefined = every caller. */
  callers?: string[] | undefined;
  /** Event types; undefined = every type. */
  types?: string[] | undefined;
}

export interface EventsConfig {
  endpoints: EventEndpoint[];
  /** GENPLAT_EVENTS_RETRY_FOR: how long an undelivered event is retried before it is given up (ms). */
  retryForMs: number;
}

/** 3 days: a receiver down over a weekend still hears everything once back. */
export const DEFAULT_RETRY_FOR_MS = 3 * 24 * 3_600_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A problem with an endpoint URL, or undefined: https, or http to a loopback address only; no credentials. */
export function endpointUrlProblem(field: string, raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return W.urlNotUrl(field);
  }
  if (url.username || url.password) return W.urlCredentials(field);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && (LOOPBACK_HOSTS.has(url.hostname) || /^127\./.test(url.hostname))) return undefined;
  return W.urlScheme(field);
}

/**
 * Secrets printed in public documentation (the Standard Webhooks README's example): anyone could sign with them, so
 * a bot trusting one would take forged `job.completed` or `approval.decided` events.
 */
const PUBLIC_EXAMPLE_SECRETS = new Set(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);

/** `whsec_` + base64 of 24-64 bytes (the Standard Webhooks recommendation is 24-64); never a published example. */
export function secretProblem(field: string, raw: string): string | undefined {
  if (PUBLIC_EXAMPLE_SECRETS.has(raw)) return W.secretPublic(field);
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(raw);
  if (!m?.[1]) return W.secretFormat(field);
  const bytes = Buffer.from(m[1], 'base64').length;
  return bytes >= 24 && bytes <= 64 ? undefined : W.secretFormat(field);
}

const FIELDS = new Set(['url', 'secret', 'callers', 'types']);

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0) ? (v as string[]) : undefined;
}

export function parseEndpoints(doc: unknown, problems: string[]): EventEndpoint[] {
  if (!Array.isArray(doc)) {
    problems.push(W.fileShape);
    return [];
  }
  const out: EventEndpoint[] = [];
  const seen = new Set<string>();
  doc.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push(W.entryShape(i));
      return;
    }
    const e = entry as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(e)) if (!FIELDS.has(key)) problems.push(W.entryUnknownField(i, key));
    const url = typeof e.url === 'string' ? e.url : '';
    const urlProblem = endpointUrlProblem(W.entryField(i, 'url'), url);
    if (urlProblem) problems.push(urlProblem);
    const secret = typeof e.secret === 'string' ? e.secret : '';
    const secretProb = secretProblem(W.entryField(i, 'secret'), secret);
    if (secretProb) problems.push(secretProb);
    const callers = e.callers === undefined ? undefined : strings(e.callers);
    if (e.callers !== undefined && !callers) problems.push(W.entryList(i, 'callers'));
    const types = e.types === undefined ? undefined : strings(e.types);
    if (e.types !== undefined && !types) problems.push(W.entryList(i, 'types'));
    for (const t of types ?? [])
      if (!(EVENT_TYPES as readonly string[]).includes(t)) problems.push(W.entryType(i, t, EVENT_TYPES));
    if (seen.has(url)) problems.push(W.entryDuplicate(i));
    seen.add(url);
    if (problems.length > before) return;
    out.push({ url, secret, ...(callers ? { callers } : {}), ...(types ? { types } : {}) });
  });
  return out;
}

/** "line L, column C" of a JSON or YAML parse error, from its offset or line position; else a bare "syntax error". */
function parseErrorPlace(err: unknown, text: string): string {
  const e = err as { message?: string; linePos?: { line: number; col: number }[] };
  const yamlAt = e.linePos?.[0];
  if (yamlAt) return `syntax error at line ${yamlAt.line}, column ${yamlAt.col}`;
  const offset = /position (\d+)/.exec(String(e.message ?? ''))?.[1];
  if (offset === undefined) return 'syntax error';
  const before = text.slice(0, Number(offset)).split('\n');
  return `syntax error at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function loadEndpointsFile(path: string, problems: string[]): EventEndpoint[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(W.fileUnreadable(path, (err as NodeJS.ErrnoException).code ?? 'error'));
    return [];
  }
  const yaml = /\.ya?ml$/i.test(path);
  let doc: unknown;
  try {
    doc = yaml
      ? (createRequire(import.meta.url)('yaml') as { parse(s: string, o: object): unknown }).parse(text, {
          uniqueKeys: true,
          maxAliasCount: 100,
        })
      : JSON.parse(text);
  } catch (err) {
    // Where, never what: both parsers quote the text around the error, and that text may be a secret.
    problems.push(W.fileInvalid(path, yaml ? 'YAML' : 'JSON', parseErrorPlace(err, text)));
    return [];
  }
  return parseEndpoints(doc, problems);
}

/** The events settings from the environment; undefined when none is set. Problems are appended. */
export function loadEventsConfig(
  e: {
    GENPLAT_EVENTS_URL?: string | undefined;
    GENPLAT_EVENTS_SECRET?: string | undefined;
    GENPLAT_EVENTS_ENDPOINTS?: string | undefined;
    GENPLAT_EVENTS_RETRY_FOR?: number | undefined;
  },
  resolvePath: (p: string) => string,
  problems: string[],
): EventsConfig | undefined {
  const url = e.GENPLAT_EVENTS_URL?.trim() || undefined;
  const secret = e.GENPLAT_EVENTS_SECRET?.trim() || undefined;
  const file = e.GENPLAT_EVENTS_ENDPOINTS?.trim() || undefined;
  if (!url && !secret && !file) return undefined;
  const endpoints: EventEndpoint[] = [];
  if (url || secret) {
    if (!url || !secret) problems.push(W.urlWithoutSecret);
    else {
      const p1 = endpointUrlProblem('GENPLAT_EVENTS_URL', url);
      const p2 = secretProblem('GENPLAT_EVENTS_SECRET', secret);
      if (p1) problems.push(p1);
      if (p2) problems.push(p2);
      if (!p1 && !p2) endpoints.push({ url, secret });
    }
  }
  if (file) {
    const listed = loadEndpointsFile(resolvePath(file), problems);
    // Deliveries are kept per endpoint URL: one URL with two entries would share one filter and one secret (the
    // file's entry limited to one caller would receive everyone's events, signed with its own secret).
    if (url && listed.some((x) => x.url === url)) problems.push(W.urlInBoth);
    endpoints.push(...listed);
  }
  const retryForMs =
    e.GENPLAT_EVENTS_RETRY_FOR !== undefined ? e.GENPLAT_EVENTS_RETRY_FOR * 1000 : DEFAULT_RETRY_FOR_MS;
  return { endpoints, retryForMs };
}

/**
 * An endpoint as logs, doctor and `events log` show it: the origin only. Hook URLs often carry their own
 * credential in the path or query (Slack's /services/T…/B…/<secret>, n8n's webhook ids), so never more.
 */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname === '/' && !u.search ? u.origin : `${u.origin}/…`;
  } catch {
    return '(unreadable URL)';
  }
}

/** Whether `owner` matches an endpoint's `callers` (exact ids, or prefixes written `prefix*`). */
export function callerMatches(callers: readonly string[] | undefined, owner: string | undefined): boolean {
  if (!callers) return true;
  if (owner === undefined) return false;
  return callers.some((c) => (c.endsWith('*') ? owner.startsWith(c.slice(0, -1)) : owner === c));
}
