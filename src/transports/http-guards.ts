/**
 * Host and Origin checks (DNS-rebinding protection). The SDK transport checks neither by default; its own
 * options for it are deprecated in favour of middleware like this (mcp-notes 2.12, 4).
 */

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackBind(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host.toLowerCase()) || host.startsWith('127.');
}

/** Host names a request may carry: the bound host (unless a wildcard), loopback names, and configured extras. */
export function allowedHostNames(bindHost: string, extra: readonly string[]): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, ...extra.map((h) => h.toLowerCase())]);
  const bind = bindHost.toLowerCase();
  if (bind !== '0.0.0.0' && bind !== '::' && bind !== '[::]') names.add(bind.includes(':') ? `[${bind}]` : bind);
  return names;
}

/** The host name of a Host header (`a.example:8787` → `a.example`, `[::1]:80` → `[::1]`), or undefined. */
export function hostName(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    const u = new URL(`http://${hostHeader}`);
    // A Host header is host[:port] only; anything that parsed into more (user info, path) is not one.
    if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
    return u.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function hostAllowed(hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostName(hostHeader);
  return name !== undefined && allowed.has(name);
}

/**
 * No Origin: a non-browser client (every MCP host today) — fine, the bearer token decides.
 * With an Origin: it must be on the allow-list, or be this server's own origin (same scheme-less host:port
 * as the already validated Host header, i.e. a same-origin request). Anything else is a browser page on
 * another site talking to us: 403, as the spec requires.
 */
export function originAllowed(
  origin: string | undefined,
  hostHeader: string | undefined,
  allowedOrigins: readonly string[],
): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (allowedOrigins.includes(parsed.origin.toLowerCase())) return true;
  return parsed.protocol === 'http:' && hostHeader !== undefined && parsed.host === hostHeader.toLowerCase();
}
