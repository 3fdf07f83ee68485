/**
 * Invariant 7 inside free-form values (run_model `params`, template text fields): which strings are URLs
 * something could fetch, so that they must pass the public-media-URL guard (`./url.ts`).
 *
 * A prefix test such as `^https?://` misses what parsers accept: WHATWG `new URL()` trims leading and
 * trailing spaces and C0 controls, deletes tabs and newlines anywhere (`ht\ttp://`), reads `http:/h`,
 * `http:\\h\x` and `http:h` as `http://h/`, and takes any letter case. The platform parses the raw string
 * with a parser we do not know, so we ask the WHATWG parser itself, on the trimmed value, and treat
 * everything it reads as a fetchable URL as one.
 *
 * Not every absolute URL is fetchable. `Style:anime`, `Close-up: a woman smiling` or `mailto:a@b.c` parse
 * as URLs with an opaque path under a scheme no fetcher implements; refusing them would break ordinary
 * prompts and captions. So a value is URL-shaped when, after trimming:
 * - it starts with `scheme:/` or `scheme:\` (an authority or a path: `gopher://`, `C:\x`, and spellings
 *   WHATWG itself refuses such as `http://exa mple.com`), or
 * - WHATWG parses it and the scheme is a special one (http, https, ws, wss, ftp, file: WHATWG gives these
 *   a host however they are written), or one that fetches or embeds content without a `/` (data, blob,
 *   jar, javascript…).
 */

/** WHATWG special schemes: always parsed with a host, whatever follows the colon. */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/** Schemes that carry or reach content with an opaque path (`data:…`, `blob:http://…`, `jar:http://…!/`). */
const FETCHING_OPAQUE = new Set([
  'data:',
  'blob:',
  'jar:',
  'javascript:',
  'vbscript:',
  'view-source:',
  'filesystem:',
  'netdoc:',
]);

/**
 * The value as a URL parser sees it: JS whitespace and C0 controls trimmed from both ends (WHATWG trims C0
 * and space; `.trim()` also takes Unicode spaces, which lenient parsers strip), tabs and newlines removed.
 */
export function urlParserInput(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: C0 controls are exactly what WHATWG trims
  return value.replace(/^[\s\u0000-\u0020]+|[\s\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
}

/** True when a free-form string is a URL something could fetch (rules in the module comment). */
export function isUrlShaped(value: string): boolean {
  const input = urlParserInput(value);
  if (/^[a-z][a-z0-9+.-]*:[/\\]/i.test(input)) return true;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return false;
  }
  return SPECIAL.has(url.protocol) || FETCHING_OPAQUE.has(url.protocol);
}
