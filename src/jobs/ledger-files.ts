/**
 * The small files next to the ledger: single-use nonces and the HMAC secret. Both rely on exclusive
 * creation (`O_CREAT|O_EXCL`, flag `wx`), which the OS makes atomic across processes, so no lock is needed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, link, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StateError } from './state-error.js';

const SECRET_BYTES = 32;

function isCode(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}

/** Writes, syncs and closes a new file; fails with EEXIST if it already exists. */
async function createExclusive(path: string, content: Buffer | string, mode: number): Promise<void> {
  const fh = await open(path, 'wx', mode);
  try {
    await fh.writeFile(content);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/**
 * Marks a nonce used. The file name is a hash, so a nonce of any shape is a safe file name and the nonce
 * itself (part of a confirmation token) is not left readable on disk.
 * @returns true the first time for this nonce in this state dir (across processes), false ever after.
 * @throws on file-system errors other than "already exists".
 */
export async function consumeNonceFile(noncesDir: string, nonce: string, expiresAt: Date): Promise<boolean> {
  const name = createHash('sha256').update(nonce).digest('hex');
  try {
    await createExclusive(join(noncesDir, name), String(expiresAt.getTime()), 0o600);
    return true;
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    throw err;
  }
}

/**
 * Deletes nonce files whose token has expired. Safe because an expired token is refused on its expiry
 * before its nonce is ever looked at; errors are ignored (another process may be pruning too).
 */
export async function pruneNonces(noncesDir: string, now = Date.now()): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(noncesDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    const path = join(noncesDir, name);
    try {
      const expires = Number((await readFile(path, 'utf8')).trim());
      // An unreadable or half-written file is left alone: it may be being created right now.
      if (!Number.isFinite(expires) || expires === 0 || expires >= now) continue;
      await unlink(path);
      removed++;
    } catch {
      // vanished or unreadable: nothing to do
    }
  }
  return removed;
}

async function readSecret(path: string): Promise<Buffer> {
  const buf = await readFile(path);
  if (buf.length !== SECRET_BYTES) {
    throw new StateError(
      path,
      `holds ${buf.length} bytes instead of ${SECRET_BYTES}: the consent-token secret is damaged`,
      'Delete that file; a new secret is created on the next call (confirmation tokens issued so far stop working).',
    );
  }
  return buf;
}

/**
 * Returns the state dir's HMAC secret, creating it on first use (mode 0600).
 *
 * Race safety: the bytes are written and synced to a private temp file first, then `link()`ed to the final
 * name, which fails with EEXIST if another process won. So the final name only ever appears with its full
 * content, and two processes starting together read the same secret.
 * @throws when the file system refuses, or when an existing secret file is damaged (wrong length).
 */
export async function loadOrCreateSecret(path: string): Promise<Buffer> {
  try {
    return await readSecret(path);
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
  const fresh = randomBytes(SECRET_BYTES);
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await createExclusive(tmp, fresh, 0o600);
  // umask can only remove bits, but be explicit: the secret signs consent tokens.
  await chmod(tmp, 0o600).catch(() => {});
  try {
    await link(tmp, path);
  } catch (err) {
    if (isCode(err, 'EEXIST')) return readSecret(path);
    if (!isCode(err, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV')) throw err;
    // File systems without hard links: exclusive create of the final name (a reader racing the writer
    // could see a short file, which readSecret reports rather than using a weak key).
    try {
      await createExclusive(path, fresh, 0o600);
    } catch (inner) {
      if (isCode(inner, 'EEXIST')) return readSecret(path);
      throw inner;
    }
  } finally {
    await unlink(tmp).catch(() => {});
  }
  return fresh;
}

/** Directory entries are durable only after the directory itself is synced (POSIX); best effort elsewhere. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, constants.O_RDONLY);
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Windows cannot open a directory for sync; NTFS journals metadata anyway.
  }
}
