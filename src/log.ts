/**
 * The stderr logger. stdout belongs to JSON-RPC in stdio mode (invariant 6), so nothing here writes to it.
 * Every line goes through `redact`, which removes the API key and any registered secret.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Registers a value that must never appear in output (the API key, HTTP bearer token, HMAC secret). */
  addSecret(secret: string | undefined): void;
  /**
   * Adds an extra sink (MCP logging of one server instance); it receives already-redacted lines. Returns the
   * remover. A set, not a chain: HTTP builds an instance per request and they end in any order.
   */
  addSink(sink: LogSink): () => void;
}

export type LogSink = (level: LogLevel, line: string) => void;

const secrets = new Set<string>();

/** Replaces every registered secret (process-wide) with `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) secrets.add(secret);
}

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Logger {
  const sinks = new Set<LogSink>();
  const logger: Logger = {
    addSecret: registerSecret,
    addSink(sink) {
      sinks.add(sink);
      return () => sinks.delete(sink);
    },
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
  function emit(l: LogLevel, msg: string, fields?: Record<string, unknown>) {
    if (ORDER[l] < ORDER[level]) return;
    let line = `[genplat-mcp] ${l} ${msg}`;
    if (fields && Object.keys(fields).length > 0) {
      try {
        line += ` ${JSON.stringify(fields)}`;
      } catch {
        line += ' [unserialisable fields]';
      }
    }
    const safe = redact(line);
    write(safe);
    for (const sink of sinks) sink(l, safe);
  }
  return logger;
}

/** A logger that drops everything (tests that do not care about logs). */
export const silentLogger: Logger = createLogger('error', () => {});
