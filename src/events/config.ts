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

/** `whsec_` + base64 of 24-64 bytes (the Standard Webhooks recommendation is 24-64). */
export function secretProblem(field: string, raw: string): string | undefined {
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
    const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    problems.push(W.fileInvalid(path, yaml ? 'YAML' : 'JSON', why));
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
  if (file) endpoints.push(...loadEndpointsFile(resolvePath(file), problems));
  const retryForMs =
    e.GENPLAT_EVENTS_RETRY_FOR !== undefined ? e.GENPLAT_EVENTS_RETRY_FOR * 1000 : DEFAULT_RETRY_FOR_MS;
  return { endpoints, retryForMs };
}

/** Whether `owner` matches an endpoint's `callers` (exact ids, or prefixes written `prefix*`). */
export function callerMatches(callers: readonly string[] | undefined, owner: string | undefined): boolean {
  if (!callers) return true;
  if (owner === undefined) return false;
  return callers.some((c) => (c.endsWith('*') ? owner.startsWith(c.slice(0, -1)) : owner === c));
}
