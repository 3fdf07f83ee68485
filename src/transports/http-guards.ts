/**
 * The allow-lists for the SDK's Host and Origin guards (`@modelcontextprotocol/node`; DNS-rebinding
 * protection): which names this server answers to. The checks themselves are the SDK's.
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

/**
 * Origin host names the SDK's `originValidation` accepts (it compares host names, port-agnostic): those of the
 * configured origins, plus this server's own names, so a same-origin page (a View served from here) passes.
 * No Origin header passes too (every non-browser MCP client); the bearer token decides then.
 */
export function allowedOriginHostNames(
  bindHost: string,
  extraHosts: readonly string[],
  allowedOrigins: readonly string[],
): string[] {
  const names = new Set(allowedHostNames(bindHost, extraHosts));
  for (const origin of allowedOrigins) {
    try {
      const host = new URL(origin).hostname.toLowerCase();
      names.add(host);
    } catch {
      // config.ts already refused anything that is not an origin
    }
  }
  return [...names];
}
