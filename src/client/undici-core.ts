/**
 * The part of undici every JSON request needs: the keep-alive `Agent` and the `request` API on dispatchers.
 * undici's index loads all of it (fetch, WebSocket, EventSource, mocks, caches, proxies, interceptors): 24-25 MiB
 * of RSS and ~150 ms to require, against 15 MiB and ~55 ms for these three modules (Node 22, 2-core box,
 * `process.memoryUsage().rss` and `performance.now()` around the require, 2 runs each). A host's connect-time
 * resources/list reads the catalog, so this was most of the memory above a minimal SDK server (issue 13 item 7).
 * Multipart uploads, the one use of fetch/FormData, still load the whole package (`loadUndici`).
 *
 * undici 7 has no `exports` map, so these files are public by path; test/unit/client/undici-core.test.ts fails
 * if an upgrade moves them.
 */
import { createRequire } from 'node:module';
import type { Agent } from 'undici';

export interface UndiciCore {
  Agent: typeof Agent;
}

/**
 * Requires the three modules and adds the request API to dispatchers, exactly as undici's index does
 * (`Object.assign(Dispatcher.prototype, api)`; the same functions, so a later full import changes nothing).
 */
export function requireUndiciCore(): UndiciCore {
  const require = createRequire(import.meta.url);
  const Dispatcher = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
  Object.assign(Dispatcher.prototype, require('undici/lib/api') as object);
  return { Agent: require('undici/lib/dispatcher/agent') as typeof Agent };
}
