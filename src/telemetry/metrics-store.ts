/**
 * Store latency and timeouts (docs/operate.md "Metrics"): with metrics on, every async method of the store is
 * timed by operation name and outcome (`timeout` = a bounded wait that ran out, src/store/db-timeouts.ts). With
 * metrics off the store is returned as it is: not even a Proxy stands in the way.
 */
import { isDbTimeout } from '../store/db-timeouts.js';
import type { Store } from '../store/types.js';
import { metrics, metricsOn } from './metrics.js';

export function timedStore<S extends Store>(store: S): S {
  if (!metricsOn()) return store;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      let w = wrapped.get(prop);
      if (!w) {
        w = function (this: unknown, ...args: unknown[]) {
          const started = performance.now();
          const result = (value as (...a: unknown[]) => unknown).apply(this === receiver ? target : this, args);
          // Synchronous members (blobs(), description getters' helpers) are passed through untimed.
          if (!(result instanceof Promise)) return result;
          return result.then(
            (v) => {
              metrics.storeCall(prop, 'ok', (performance.now() - started) / 1000);
              return v;
            },
            (err: unknown) => {
              metrics.storeCall(prop, isDbTimeout(err) ? 'timeout' : 'error', (performance.now() - started) / 1000);
              throw err;
            },
          );
        };
        wrapped.set(prop, w);
      }
      return w;
    },
  });
}
