/**
 * `genplat-mcp events log [--sandbox]`: the event delivery log to stdout, for the operator (docs/events.md): per
 * endpoint what was delivered, is waiting or was given up, then the latest POSTs (time, event id, type, endpoint,
 * HTTP status, time taken, error). Reads the configured store (SQLite state dir or GENPLAT_DATABASE_URL;
 * `--sandbox`: the sandbox's store); needs no API key. A SQLite store that does not exist is named, never created.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openConfiguredStore } from '../store/index.js';
import { shownEndpoint } from './config.js';
import { eventsWords as W } from './wording.js';

/** The newest POSTs shown (the summary above counts all of them). */
const LOG_LINES = 500;

export async function runEventsLog(
  config: Config,
  log: Logger,
  write: (chunk: string) => void = (c) => process.stdout.write(c),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  if (!config.databaseUrl) {
    const file = join(config.stateDir, 'genplat.db');
    if (!existsSync(file)) {
      err(W.cliNoStore(file));
      return 2;
    }
  }
  const store = await openConfiguredStore(config, log);
  try {
    const lines: string[] = [];
    for (const s of await store.deliverySummary())
      lines.push(
        W.doctorEndpoint(
          shownEndpoint(s.endpoint),
          s.due,
          s.delivered,
          s.dead,
          s.oldestDue !== undefined ? new Date(s.oldestDue).toISOString() : undefined,
          s.lastError,
        ),
      );
    const attempts = await store.deliveryLog(LOG_LINES);
    if (attempts.length === 0) lines.push(W.logEmpty);
    else {
      lines.push(W.logHeader);
      for (const a of attempts)
        lines.push(
          [a.at, a.eventId, a.type, shownEndpoint(a.endpoint), a.status ?? '-', a.ms, a.error ?? ''].join('\t'),
        );
    }
    write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
