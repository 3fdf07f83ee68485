/**
 * Invariant 7: media URL fields accept only public http(s) URLs, and `webhook_url` only hosts the operator
 * allowed. An agent can be talked (prompt injection) into passing `http://169.254.169.254/…` or an intranet
 * host; the platform would then fetch it, or POST job results to it.
 *
 * We validate the URL's *form* and never resolve DNS: the platform, not this process, fetches the URL, from
 * its own network, so what a name resolves to here says nothing about what it will reach there, and a
 * lookup now could differ from the platform's later (DNS rebinding). Names that can only be private by
 * convention (`localhost`, `.local`, `.internal`…) and every IP literal outside public unicast space are
 * refused; a public name pointing at a private address is the platform's SSRF defence to make.
 *
 * Address classes come from ipaddr.js. Host parsing is WHATWG `new URL()`, which already turns the
 * decimal, hex, octal and short IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) into
 * dotted quads, lower-cases and punycodes names, and refuses IPv6 zone ids.
 */
import ipaddr from 'ipaddr.js';
import { UserInputError } from '../errors.js';

/** Longest URL we accept; far above real media URLs, below what common servers refuse (8 KB). */
export const MAX_URL_LENGTH = 2048;
/** Longest data URI where the spec allows them (~15 MB of base64 ≈ 11 MB of media); bounds request size. */
export const MAX_DATA_URI_LENGTH = 15_000_000;

export const PUBLIC_URL_RULE =
  'must be a public http(s) URL (private, loopback and link-local addresses are not allowed)';

/**
 * Names that only resolve inside a private network: RFC 6761 `localhost`, RFC 6762 `.local` and its
 * Appendix G list, RFC 8375 `home.arpa`, `.internal` (cloud metadata and VPC names), `.localdomain`.
 * `.test`/`.invalid` are left to the platform (nothing is charged when it refuses them; the simulator uses
 * `.invalid` to play an unreachable URL).
 */
const PRIVATE_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'home.arpa',
  'arpa',
  'localdomain',
  'lan',
  'intranet',
  'corp',
  'home',
  'private',
];

const DATA_URI = /^data:(image|video|audio)\/[a-z0-9][a-z0-9.+-]*;base64,[a-z0-9+/]+={0,2}$/i;

/**
 * Origins (scheme://host:port) whose URLs pass even though they are loopback. Process-wide on purpose: the
 * sandbox registers the simulator's own origin once at start so its output URLs can be fed back as inputs,
 * and zod refinements in tool schemas run without any per-call context to carry it.
 */
const trustedOrigins = new Set<string>();

/**
 * Replaces the set of trusted media origins (the sandbox simulator's `http://127.0.0.1:PORT`).
 * @throws Error when an entry is not an absolute URL.
 */
export function setTrustedMediaOrigins(origins: string[]): void {
  trustedOrigins.clear();
  for (const o of origins) trustedOrigins.add(new URL(o).origin);
}

/** The trusted media origins (the sandbox's), for the Apps' CSP (src/apps/csp.ts). */
export function trustedMediaOrigins(): string[] {
  return [...trustedOrigins];
}

/** ipaddr.js range names, in words for the agent. */
const RANGE_WORDS: Record<string, string> = {
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  linkLocal: 'link-local (incl. cloud metadata)',
  uniqueLocal: 'unique-local (private)',
  ipv4Mapped: 'IPv4-mapped',
  unspecified: 'unspecified',
};

function ipProblem(addr: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const range = addr.range();
  const words = RANGE_WORDS[range] ?? range;
  if (addr.kind() === 'ipv4') return range === 'unicast' ? undefined : `${addr.toString()} is a ${words} address`;
  const v6 = addr as ipaddr.IPv6;
  if (range !== 'unicast') return `${v6.toString()} is a ${words} IPv6 address`;
  // ipaddr.js calls everything it has no name for 'unicast'; only 2000::/3 is allocated global unicast.
  // That also catches the deprecated IPv4-compatible ::a.b.c.d form (e.g. ::127.0.0.1).
  if (!v6.match(ipaddr.IPv6.parse('2000::'), 3)) return `${v6.toString()} is not a global IPv6 address`;
  return undefined;
}

function hostProblem(hostname: string): string | undefined {
  // A trailing dot is the same name, fully qualified ("localhost." is localhost).
  const host = hostname.replace(/\.+$/, '');
  if (host.length === 0) return 'the host is empty';
  if (host.startsWith('[')) {
    const inner = host.slice(1, -1);
    if (!ipaddr.IPv6.isValid(inner)) return 'the IPv6 address is malformed';
    return ipProblem(ipaddr.IPv6.parse(inner));
  }
  // After WHATWG parsing an IPv4 host is always four decimal parts.
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(host)) return 'the IPv4 address is malformed';
    return ipProblem(ipaddr.IPv4.parse(host));
  }
  if (host === 'metadata.google.internal') return `"${host}" is a cloud metadata host name`;
  for (const suffix of PRIVATE_SUFFIXES) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return `"${host}" is a private or special-use host name`;
  }
  if (!host.includes('.')) return `"${host}" is not a public host name (single-label names are internal)`;
  return undefined;
}

/**
 * The reason a resolved address (what a host name's lookup returned, about to be connected to) is not public,
 * or undefined when it is: the same classification as IP literals in URLs, for save_outputs' downloads
 * (src/client/guarded-lookup.ts), where this process itself connects.
 */
export function resolvedAddressProblem(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  return ipProblem(ipaddr.parse(address));
}

/** The raw authority (between `scheme://` and the path) as typed, before WHATWG drops an empty `@`. */
function rawAuthority(value: string): string {
  const afterScheme = value.replace(/^[a-z][a-z0-9+.-]*:/i, '').replace(/^[/\\]+/, '');
  return afterScheme.split(/[/\\?#]/, 1)[0] ?? '';
}

/**
 * The reason `value` is not an acceptable public media URL, or undefined when it is.
 * Use `checkPublicMediaUrl` to throw; this form serves zod refinements.
 */
export function publicMediaUrlProblem(value: string, opts: { allowDataUri?: boolean } = {}): string | undefined {
  return urlProblem(value, opts.allowDataUri ?? false, true);
}

function urlProblem(value: string, allowDataUri: boolean, honourTrusted: boolean): string | undefined {
  if (value.length === 0) return 'must not be empty; give a public http(s) URL';
  if (value.trim() !== value) return 'must not have leading or trailing spaces';
  if (/^data:/i.test(value)) {
    if (!allowDataUri) return 'data URIs are not accepted here; give a public http(s) URL';
    if (value.length > MAX_DATA_URI_LENGTH) return `data URI longer than ${MAX_DATA_URI_LENGTH} characters`;
    return DATA_URI.test(value)
      ? undefined
      : 'data URI must be data:<image|video|audio>/<subtype>;base64,<base64 payload>';
  }
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  // WHATWG parsing silently drops tabs and newlines and accepts backslashes and percent-escapes in the host;
  // the platform gets the raw string and may parse it differently, so anything ambiguous is refused.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters (tabs, newlines)';
  if (!/^https?:\/\//i.test(value)) {
    // `host:8080/x` is a host and port without a scheme, not a `host:` scheme.
    const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(value)?.[1]?.toLowerCase();
    return scheme && scheme !== 'http' && scheme !== 'https'
      ? `must be an http(s) URL; ${scheme} URLs are not accepted`
      : 'must be an absolute http(s) URL such as https://cdn.example.com/file.mp4';
  }
  const authority = rawAuthority(value);
  if (authority.includes('@')) return 'must not contain a user name or password';
  if (/[%\\]/.test(authority) || /^https?:\/\/[/\\]/i.test(value)) {
    return 'the host must be written plainly (no percent-escapes, backslashes or extra slashes)';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL such as https://cdn.example.com/file.mp4';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `must be an http(s) URL; ${url.protocol.replace(/:$/, '')} URLs are not accepted`;
  }
  if (url.username || url.password) {
    return 'must not contain a user name or password';
  }
  if (honourTrusted && trustedOrigins.has(url.origin)) return undefined;
  const problem = hostProblem(url.hostname);
  return problem ? `${PUBLIC_URL_RULE}: ${problem}` : undefined;
}

/**
 * Checks a public media URL field (spec convention 9; design invariant 7).
 * @throws UserInputError naming `field` with the rule that failed.
 */
export function checkPublicMediaUrl(field: string, value: string, opts?: { allowDataUri?: boolean }): void {
  const problem = publicMediaUrlProblem(value, opts);
  if (problem) throw new UserInputError(field, problem);
}

/** Form rules of a webhook URL that need no config: a public https URL. */
export function webhookUrlFormProblem(value: string): string | undefined {
  if (/^data:/i.test(value)) return 'must be an https URL';
  // Trusted origins exist for the simulator's media, not as callback targets.
  const problem = urlProblem(value, false, false);
  if (problem) return problem;
  if (new URL(value).protocol !== 'https:') return 'must be an https URL (the platform sends job results to it)';
  return undefined;
}

/**
 * Checks an agent-supplied `webhook_url`: a public https URL whose host is on the operator's allow-list.
 * Matching is exact (case-insensitive, trailing dot ignored): `hooks.example.com` does not allow
 * `evil.hooks.example.com`, because a subdomain can belong to someone else (user pages, dangling DNS).
 * Operators list every host they want. Trusted media origins never apply: they are media sources, not callback targets.
 * @throws UserInputError naming `field`; with an empty allow-list the message names GENPLAT_WEBHOOK_ALLOWLIST.
 */
export function checkWebhookUrl(field: string, value: string, allowlist: string[]): void {
  if (allowlist.length === 0) {
    throw new UserInputError(
      field,
      'webhooks are disabled: no host is on the operator allow-list (GENPLAT_WEBHOOK_ALLOWLIST is empty)',
      'Omit webhook_url and follow the job with wait_for_jobs, or ask the operator to add the host to GENPLAT_WEBHOOK_ALLOWLIST.',
    );
  }
  const problem = webhookUrlFormProblem(value);
  if (problem) throw new UserInputError(field, problem);
  const host = new URL(value).hostname.replace(/\.+$/, '');
  const allowed = allowlist.map((h) => h.trim().toLowerCase().replace(/\.+$/, ''));
  if (!allowed.includes(host)) {
    throw new UserInputError(
      field,
      `host "${host}" is not on the webhook allow-list (GENPLAT_WEBHOOK_ALLOWLIST: ${allowed.join(', ')})`,
      'Use an allowed host, or omit webhook_url and follow the job with wait_for_jobs.',
    );
  }
}
