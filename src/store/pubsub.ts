/**
 * Messages between the instances of a fleet: PostgreSQL LISTEN/NOTIFY when the store is PostgreSQL
 * (`GENPLAT_DATABASE_URL`), else an in-process fallback (SQLite is one machine: its processes do not talk to
 * each other). Generic by channel name: the MCP change-event bus (`src/transports/event-bus.ts`) is one user;
 * webhook "job hint" messages are another.
 *
 * Delivery is best effort, at most once, to instances listening at that moment: a message sent while an
 * instance is reconnecting is lost to it. Users send hints ("look at job X again"), never state: the store
 * stays the only truth, so a lost message costs latency (the next poll), never correctness.
 */
import type pg from 'pg';
import type { Logger } from '../log.js';

export interface PubSub {
  /** Which backend: for logs and doctor. */
  readonly description: string;
  /**
   * Sends `payload` to every subscriber of `channel` on every instance (this one included).
   * @throws Error for a channel name outside `[a-z][a-z0-9_]{0,39}`, a payload over 7,900 bytes or one with NUL.
   */
  publish(channel: string, payload: string): Promise<void>;
  /** Calls `fn` for every message on `channel` from now on; returns the unsubscribe function (idempotent). */
  subscribe(channel: string, fn: (payload: string) => void): () => void;
  close(): Promise<void>;
}

/** A PostgreSQL identifier we can LISTEN on without quoting, with room for our prefix (limit 63). */
const CHANNEL_RE = /^[a-z][a-z0-9_]{0,39}$/;
/** NOTIFY payloads must be shorter than 8,000 bytes (PostgreSQL docs, NOTIFY); keep a margin. */
export const MAX_PAYLOAD_BYTES = 7_900;
/** Every channel we LISTEN on is prefixed, so ours never collide with another application's on one database. */
const PREFIX = 'genplat_';

function checkMessage(channel: string, payload: string): void {
  if (!CHANNEL_RE.test(channel)) throw new Error(`pubsub channel "${channel}" must match ${CHANNEL_RE.source}`);
  // PostgreSQL text cannot hold NUL ("invalid byte sequence for encoding UTF8: 0x00"). Refused on both backends,
  // so a caller that would only fail in a fleet fails in process too (a job key has NUL: src/webhooks/hints.ts).
  if (payload.includes('\u0000')) throw new Error(`pubsub payload on "${channel}" contains a NUL character`);
  if (Buffer.byteLength(payload, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new Error(`pubsub payload on "${channel}" is over ${MAX_PAYLOAD_BYTES} bytes`);
  }
}

/** Per-channel listener sets, shared by both backends; a throwing listener never stops the others. */
class Listeners {
  private readonly byChannel = new Map<string, Set<(payload: string) => void>>();

  constructor(private readonly onError: (err: unknown, channel: string) => void) {}

  add(channel: string, fn: (payload: string) => void): { first: boolean; remove: () => boolean } {
    let set = this.byChannel.get(channel);
    const first = set === undefined;
    if (!set) {
      set = new Set();
      this.byChannel.set(channel, set);
    }
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const entry = (p: string) => fn(p);
    set.add(entry);
    let removed = false;
    return {
      first,
      /** True when this was the channel's last listener. */
      remove: () => {
        if (removed) return false;
        removed = true;
        set.delete(entry);
        if (set.size > 0) return false;
        this.byChannel.delete(channel);
        return true;
      },
    };
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  deliver(channel: string, payload: string): void {
    for (const fn of [...(this.byChannel.get(channel) ?? [])]) {
      try {
        fn(payload);
      } catch (err) {
        this.onError(err, channel);
      }
    }
  }

  clear(): void {
    this.byChannel.clear();
  }
}

/** One process only: SQLite stores, tests. Delivery is asynchronous, as over PostgreSQL, so callers see one behaviour. */
export function createLocalPubSub(log?: Pick<Logger, 'warn'>): PubSub {
  const listeners = new Listeners((err, channel) =>
    log?.warn('pubsub listener failed', { channel, error: String(err) }),
  );
  let closed = false;
  return {
    description: 'in-process (one instance)',
    async publish(channel, payload) {
      checkMessage(channel, payload);
      if (closed) throw new Error('pubsub is closed');
      queueMicrotask(() => listeners.deliver(channel, payload));
    },
    subscribe(channel, fn) {
      checkMessage(channel, '');
      const { remove } = listeners.add(channel, fn);
      return () => void remove();
    },
    async close() {
      closed = true;
      listeners.clear();
    },
  };
}

export interface PostgresPubSubOptions {
  log: Pick<Logger, 'warn' | 'debug'>;
  /** Backoff between reconnects: doubles from `min` to `max`. 1 s / 30 s: a database restart takes seconds. */
  reconnectMs?: { min: number; max: number };
}

/**
 * LISTEN/NOTIFY over one dedicated connection per instance (LISTEN needs a session; a pooled connection would
 * lose it). NOTIFY goes out on the same connection; PostgreSQL delivers it to every listener, the sender
 * included, so local subscribers are served by the same path as remote ones. A lost connection is reopened
 * with backoff and every channel listened again.
 * @throws the connection error when the first connect fails (the caller's store open failed the same way).
 */
export async function createPostgresPubSub(url: string, opts: PostgresPubSubOptions): Promise<PubSub> {
  const log = opts.log;
  const backoff = opts.reconnectMs ?? { min: 1_000, max: 30_000 };
  const listeners = new Listeners((err, channel) =>
    log.warn('pubsub listener failed', { channel, error: String(err) }),
  );
  let closed = false;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = backoff.min;

  // Loaded here, not at the top: a stdio or SQLite start never pays for `pg`.
  const { default: driver } = await import('pg');

  async function open(): Promise<pg.Client> {
    const c = new driver.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (!msg.channel.startsWith(PREFIX)) return;
      listeners.deliver(msg.channel.slice(PREFIX.length), msg.payload ?? '');
    });
    c.on('error', (err) => {
      log.debug('pubsub connection error', { error: err.message });
    });
    c.on('end', () => {
      if (client === c) client = undefined;
      if (!closed) scheduleReconnect();
    });
    await c.connect();
    for (const ch of listeners.channels()) await c.query(`LISTEN ${PREFIX}${ch}`);
    return c;
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer || connecting) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().catch((err) => {
        log.warn('pubsub reconnect failed; retrying', { error: String((err as Error).message ?? err) });
        delay = Math.min(delay * 2, backoff.max);
        scheduleReconnect();
      });
    }, delay);
    retryTimer.unref();
  }

  async function connect(): Promise<pg.Client> {
    if (client) return client;
    connecting ??= open().finally(() => {
      connecting = undefined;
    });
    const c = await connecting;
    if (closed) {
      await c.end().catch(() => {});
      throw new Error('pubsub is closed');
    }
    client = c;
    delay = backoff.min;
    return c;
  }

  /**
   * One statement at a time on the connection: pg queues overlapping queries itself but warns that it will stop
   * doing so (pg 9), and LISTEN/UNLISTEN/NOTIFY from different callers do overlap.
   */
  let chain: Promise<unknown> = Promise.resolve();
  function serial<T>(run: () => Promise<T>): Promise<T> {
    const next = chain.then(run, run);
    chain = next.catch(() => {});
    return next;
  }

  /** Runs `sql` on the live connection; when there is none, the reconnect re-LISTENs from `listeners`. */
  async function onLive(sql: string, args: unknown[] = []): Promise<void> {
    const c = client;
    if (!c) {
      scheduleReconnect();
      return;
    }
    await serial(() => c.query(sql, args)).catch((err) => log.debug('pubsub statement failed', { error: String(err) }));
  }

  await connect();
  return {
    description: 'PostgreSQL LISTEN/NOTIFY (every instance on the database)',
    async publish(channel, payload) {
      checkMessage(channel, payload);
      if (closed) throw new Error('pubsub is closed');
      const c = client ?? (await connect());
      await serial(() => c.query('SELECT pg_notify($1, $2)', [`${PREFIX}${channel}`, payload]));
    },
    subscribe(channel, fn) {
      checkMessage(channel, '');
      const { first, remove } = listeners.add(channel, fn);
      if (first) void onLive(`LISTEN ${PREFIX}${channel}`);
      return () => {
        if (remove()) void onLive(`UNLISTEN ${PREFIX}${channel}`);
      };
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      listeners.clear();
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}

/** The configured backend: PostgreSQL when the store is, else in-process. */
export function openPubSub(
  config: { databaseUrl?: string | undefined },
  log: Pick<Logger, 'warn' | 'debug'>,
): Promise<PubSub> {
  return config.databaseUrl
    ? createPostgresPubSub(config.databaseUrl, { log })
    : Promise.resolve(createLocalPubSub(log));
}
