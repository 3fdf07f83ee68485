/**
 * Upgrade path from 0.1: the state dir's `ledger.jsonl` (every record, unknown outcomes included, so today's
 * spend and the duplicate guard carry over), the used nonces in `nonces/` and the HMAC `secret` (kept as the
 * consent key; tokens are now signed with a key derived from it (src/signer.ts), so a 0.1 token still open at
 * the upgrade is refused and quoted again: they live 10 minutes) are read here, before any transaction, and
 * written by the SQLite store in the same transaction that creates its schema: exactly once, even when two
 * processes open a fresh state dir together. Afterwards `ledger.jsonl` is renamed `ledger.jsonl.imported`
 * (kept as a backup; the store's `meta` row `ledger_imported` is what prevents a second import).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { readLedgerFile } from '../jobs/ledger-reader.js';
import type { Logger } from '../log.js';
import { CONSENT_KEY_BYTES } from './record.js';
import type { JobRecord } from './types.js';

export interface LedgerImport {
  /** Oldest first, so the store's insertion order breaks createdAt ties as the ledger's file order did. */
  records: JobRecord[];
  /** sha256 hex of used nonces (the 0.1 file names) and their token's expiry; expired ones are left out. */
  nonces: { hash: string; expiresAt: number }[];
  secret: Buffer | undefined;
}

export const LEDGER_FILE = 'ledger.jsonl';
export const IMPORTED_SUFFIX = '.imported';

/** @returns undefined when the state dir holds nothing of 0.1. @throws when the ledger cannot be read. */
export async function readLedgerForImport(
  stateDir: string,
  log: Pick<Logger, 'warn'>,
  now = Date.now(),
): Promise<LedgerImport | undefined> {
  const ledgerPath = join(stateDir, LEDGER_FILE);
  const secretPath = join(stateDir, 'secret');
  if (!existsSync(ledgerPath) && !existsSync(secretPath)) return undefined;
  let records: JobRecord[] = [];
  if (existsSync(ledgerPath)) {
    const content = await readLedgerFile(ledgerPath);
    records = content.records;
    if (content.damaged > 0) {
      log.warn(
        `job ledger: skipped ${content.damaged} damaged line(s) in ${ledgerPath} (a write torn by a crash, or corruption); all other records are imported`,
      );
    }
  }
  const nonces: LedgerImport['nonces'] = [];
  const names = await readdir(join(stateDir, 'nonces')).catch(() => [] as string[]);
  for (const name of names) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    const expiresAt = Number((await readFile(join(stateDir, 'nonces', name), 'utf8').catch(() => '')).trim());
    // An unreadable expiry is kept for a day: refusing a token twice is safe, accepting it twice is not.
    if (!Number.isFinite(expiresAt) || expiresAt === 0) nonces.push({ hash: name, expiresAt: now + 86_400_000 });
    else if (expiresAt >= now) nonces.push({ hash: name, expiresAt });
  }
  let secret: Buffer | undefined;
  const raw = await readFile(secretPath).catch(() => undefined);
  if (raw?.length === CONSENT_KEY_BYTES) secret = raw;
  else if (raw) log.warn(`${secretPath} is not a 32-byte secret; not imported (tokens issued by 0.1 become invalid)`);
  return { records, nonces, secret };
}

/** After the import committed. Best effort: a second process may have renamed it already. */
export async function setLedgerAside(stateDir: string): Promise<void> {
  const from = join(stateDir, LEDGER_FILE);
  await rename(from, `${from}${IMPORTED_SUFFIX}`).catch(() => {});
}
