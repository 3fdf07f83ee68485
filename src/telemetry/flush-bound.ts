/**
 * How long a stop waits for telemetry's last flush. A collector that accepts connections and never answers would
 * otherwise hold the stop for the exporters' own timeouts (10 s each, seen at 13 s), close to the kill timeouts of
 * MCP hosts (Claude Desktop, Inspector: a few seconds after stdin closes), which would then cut the store's own
 * closing short. Spans and figures still unsent after the bound are lost; jobs and spend never are (they are the
 * store's).
 */
export const SHUTDOWN_FLUSH_MS = 3_000;

/** Waits for `flush` at most `ms`; a flush that fails or outlasts it is given up silently (telemetry only). */
export async function boundedFlush(flush: Promise<unknown>, ms = SHUTDOWN_FLUSH_MS): Promise<'flushed' | 'given_up'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'given_up'>((resolve) => {
    timer = setTimeout(() => resolve('given_up'), ms);
    timer.unref();
  });
  try {
    return await Promise.race([
      flush.then(
        () => 'flushed' as const,
        () => 'given_up' as const,
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
