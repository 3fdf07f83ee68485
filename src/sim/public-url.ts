/**
 * Spec convention 9 as the simulator enforces it: media URL fields must be public http(s) URLs.
 *
 * Conventions where the spec is silent (the README and the tests rely on them):
 * - Public: http(s), no user/password, a host that is a DNS name with a dot (not `localhost`, `*.localhost`,
 *   `*.local`, `*.internal`, `metadata*`) or a literal IP that ipaddr.js classifies as `unicast` (so no private,
 *   loopback, link-local incl. 169.254.169.254, CGNAT, multicast, reserved, IPv4-mapped private…). The
 *   simulator's own origin counts as public, so its media URLs can be fed back in.
 * - Data URIs only where a route allows them (`allowDataUri`).
 * - "Must be accessible": the simulator does not fetch anything, so a host ending in `.invalid` or a URL that
 *   contains `unreachable` is treated as inaccessible.
 * - Audio length: the simulator cannot decode audio, so it reads it from a `duration=<seconds>` query parameter
 *   on the audio URL when present (e.g. `https://cdn.example.com/a.mp3?duration=95`), else assumes 20 s. The
 *   simulator's own `/media/*.mp3` is 20 s.
 */
import ipaddr from 'ipaddr.js';

/** Default length assumed for audio URLs without a `duration` hint (seconds). */
export const DEFAULT_AUDIO_SECONDS = 20;

const BLOCKED_HOST_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

export function isPublicHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (ipaddr.isValid(host)) {
    let addr = ipaddr.parse(host);
    if (addr.kind() === 'ipv6') {
      const v6 = addr as ipaddr.IPv6;
      if (v6.isIPv4MappedAddress()) {
        addr = v6.toIPv4Address();
      } else {
        // ipaddr.js calls every address it has no name for 'unicast' (e.g. the old IPv4-compatible
        // ::127.0.0.1); only 2000::/3 is routable global unicast.
        const first = v6.parts[0] ?? 0;
        if ((first & 0xe000) !== 0x2000) return false;
      }
    }
    return addr.range() === 'unicast';
  }
  if (host === 'localhost' || host.startsWith('metadata')) return false;
  if (BLOCKED_HOST_SUFFIXES.some((s) => host.endsWith(s))) return false;
  // Single-label names only resolve on a private network.
  return host.includes('.');
}

/**
 * `selfOrigin`: the simulator's own origin, whose URLs count as public. Parsed as WHATWG does (so padded
 * values, `http:/h`, `http:\\h`, `HTTP:h`, tabs inside and decimal or hex IPv4 hosts all reach the host
 * check), the way a lenient fetcher on the platform would read them.
 */
export function isPublicUrl(raw: string, selfOrigin: string, opts: { allowDataUri?: boolean } = {}): boolean {
  if (typeof raw !== 'string' || raw.length === 0) return false;
  if (/^data:/i.test(raw)) return opts.allowDataUri === true && /^data:[\w.+-]+\/[\w.+-]+;base64,/i.test(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password) return false;
  if (url.origin === selfOrigin) return true;
  return isPublicHost(url.hostname);
}

export function isLoopbackUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return (url.protocol === 'http:' || url.protocol === 'https:') && ['127.0.0.1', 'localhost', '::1'].includes(host);
  } catch {
    return false;
  }
}

export function isAccessible(raw: string): boolean {
  try {
    const url = new URL(raw);
    return !url.hostname.toLowerCase().endsWith('.invalid') && !raw.toLowerCase().includes('unreachable');
  } catch {
    return false;
  }
}

/** Audio length in seconds by the convention above. */
export function audioDurationS(raw: string): number {
  try {
    const d = new URL(raw).searchParams.get('duration');
    if (d !== null && d.trim() !== '' && Number.isFinite(Number(d)) && Number(d) >= 0) return Number(d);
  } catch {
    // Not a URL: callers have already rejected it.
  }
  return DEFAULT_AUDIO_SECONDS;
}
