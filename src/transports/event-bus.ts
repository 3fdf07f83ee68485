/**
 * The SDK's `ServerEventBus` (what `subscriptions/listen` streams of 2026-07-28 clients are fed from) over our
 * pub/sub: an event published on any instance reaches the open listen streams of every instance on the same
 * PostgreSQL. The SDK keeps the wire semantics (filtering by URI, subscription ids); this only carries events.
 */
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import type { PubSub } from '../store/pubsub.js';

/** The pub/sub channel of MCP change events. */
export const SERVER_EVENTS_CHANNEL = 'server_events';

const KINDS = new Set(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed', 'resource_updated']);

/** A message off the wire, checked: another instance (or anything able to NOTIFY) wrote it. */
function parseEvent(payload: string): ServerEvent | undefined {
  try {
    const e = JSON.parse(payload) as { kind?: unknown; uri?: unknown; params?: unknown };
    if (typeof e !== 'object' || e === null || typeof e.kind !== 'string' || !KINDS.has(e.kind)) return undefined;
    if (e.kind === 'resource_updated') {
      if (typeof e.uri !== 'string') return undefined;
      const params =
        typeof e.params === 'object' && e.params !== null ? { params: e.params as ServerEvent['params'] } : {};
      return { kind: 'resource_updated', uri: e.uri, ...params };
    }
    return { kind: e.kind } as ServerEvent;
  } catch {
    return undefined;
  }
}

export interface PubSubEventBus extends ServerEventBus {
  /** Stops listening on the pub/sub (the pub/sub itself is closed by its owner). */
  close(): void;
}

/**
 * Forwarded notification params (`event.params`) of an update are carried: ours are a progress note of a few
 * dozen bytes (src/transports/change-events.ts), far below NOTIFY's payload limit (8,000 bytes).
 */
export function pubSubEventBus(pubsub: PubSub, log: Pick<Logger, 'warn' | 'debug'>): PubSubEventBus {
  const listeners = new Set<(event: ServerEvent) => void>();
  const off = pubsub.subscribe(SERVER_EVENTS_CHANNEL, (payload) => {
    const event = parseEvent(payload);
    if (!event) return log.debug('ignored a malformed server event', { bytes: payload.length });
    for (const fn of [...listeners]) {
      try {
        fn(event);
      } catch (err) {
        log.warn('server event listener failed', { error: String(err) });
      }
    }
  });
  return {
    publish(event) {
      const wire =
        event.kind === 'resource_updated'
          ? { kind: event.kind, uri: event.uri, ...(event.params ? { params: event.params } : {}) }
          : { kind: event.kind };
      // Fire and forget, as the SDK's interface is synchronous: a lost change event costs a client one re-read.
      pubsub.publish(SERVER_EVENTS_CHANNEL, JSON.stringify(wire)).catch((err) => {
        log.warn('server event not published', { kind: event.kind, error: String(err) });
      });
    },
    subscribe(listener) {
      // Wrapped, so the same function subscribed twice is two subscriptions and unsubscribe stays idempotent.
      const entry = (e: ServerEvent) => listener(e);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    close() {
      off();
      listeners.clear();
    },
  };
}
