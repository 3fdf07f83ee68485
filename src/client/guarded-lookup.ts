/**
 * DNS pinning for save_outputs (issue 19 item 4): the address a download connects to is the address that was
 * checked. undici's Agent takes this function as its `connect.lookup`, so Node's socket asks it, and only it,
 * where to connect; every address a name resolves to is classified with the URL guard (src/guards/url.ts), and
 * one non-public address refuses the connection. There is no second lookup between check and connect, so a
 * name that answers a public address to a check and 127.0.0.1 to the connect (DNS rebinding) gains nothing.
 *
 * IP literals never reach a lookup (Node connects to them directly): the URL guard refuses non-public ones
 * before the request (only the sandbox's own trusted origin passes it).
 */
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { resolvedAddressProblem } from '../guards/url.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name → every address it resolves to. Tests inject one; production uses the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What the OS would use (getaddrinfo: hosts file, DNS, mDNS...), every address, in the resolver's order. */
export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A connection refused because the name resolved to a non-public address. */
export class NonPublicAddressError extends Error {
  readonly code = 'EGENPLAT_NONPUBLIC';
}

export function guardedLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as (err: Error | null, address?: string | ResolvedAddress[], family?: number) => void;
    resolve(hostname)
      .then((all) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addrs = wanted ? all.filter((a) => a.family === wanted) : all;
        if (addrs.length === 0) {
          return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
        }
        // Every address, not only the one used: the socket may fall back to another (happy eyeballs).
        for (const a of addrs) {
          const problem = resolvedAddressProblem(a.address);
          if (problem) return cb(new NonPublicAddressError(`"${hostname}" resolves to ${problem}`));
        }
        if (options.all) return cb(null, addrs);
        const first = addrs[0] as ResolvedAddress;
        return cb(null, first.address, first.family);
      })
      .catch((err: unknown) => cb(err instanceof Error ? err : new Error(String(err))));
  };
}
