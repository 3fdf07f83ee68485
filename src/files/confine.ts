/**
 * Confinement of local paths (issue 22 item 2): a path is usable only when its real location (symlinks
 * resolved) is inside one of the allowed folders (the client's MCP roots, else GENPLAT_INPUT_DIRS), it is a
 * regular file (no device, FIFO, socket or folder), within the kind's size cap, and its first bytes are of
 * the field's kind. The file is opened with O_NOFOLLOW | O_NONBLOCK (a FIFO cannot block us, a last-moment
 * symlink swap fails) and every check after that is on the open descriptor (fstat), so what was checked is
 * what is read. Nothing beyond the first bytes is read before every check passed. A file with more than one
 * name (hard links) is refused: its other names may be outside the folders (issue 27 item 6; docs/files.md).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { UserInputError } from '../errors.js';
import { MAX_LOCAL_BYTES } from './limits.js';
import type { MediaKind } from './media-ref.js';
import { SNIFF_BYTES, sniffAs } from './sniff.js';

export interface LocalFile {
  /** Real path (symlinks resolved), inside an allowed folder. */
  path: string;
  filename: string;
  size: number;
  contentType: string;
  sha256: string;
  kind: MediaKind;
  /** `<dev>:<ino>` of the file checked: at send time the path must still name this very file (openQuotedFile). */
  fileId: string;
}

const MiB = 1024 * 1024;

/** True when `inner` is `root` or below it (both real paths). */
function isInside(root: string, inner: string): boolean {
  const rel = relative(root, inner);
  // `..foo` is a name inside the root; only `..` itself or `../…` leaves it.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The real path `raw` names (absolute, or relative to a folder, first match), when it is inside one of the
 * allowed folders with every symlink resolved, else a UserInputError naming `field`. Reads no content.
 */
export async function confinePath(field: string, raw: string, roots: string[]): Promise<string> {
  const fail = (rule: string): never => {
    throw new UserInputError(field, `local file ${basename(raw)}: ${rule}`);
  };
  if (roots.length === 0) {
    fail('local files are off: the client declared no MCP roots and GENPLAT_INPUT_DIRS is unset');
  }
  if (raw.split(/[\\/]/).includes('..')) fail('the path must not contain ".."');
  const realRoots = (await Promise.all(roots.map((r) => realpath(r).catch(() => undefined)))).filter(
    (r): r is string => r !== undefined,
  );
  const candidates = isAbsolute(raw) ? [raw] : roots.map((r) => join(r, raw));
  let real: string | undefined;
  for (const c of candidates) {
    real = await realpath(c).catch(() => undefined);
    if (real) break;
  }
  if (!real) return fail('does not exist in the allowed folders');
  if (!realRoots.some((r) => isInside(r, real))) {
    fail('is outside the allowed folders (MCP roots or GENPLAT_INPUT_DIRS), symlinks resolved');
  }
  return real;
}

/**
 * Checks and hashes one local file. `roots` are the allowed folders (unresolved).
 * @throws UserInputError naming `field` and the rule broken; nothing was staged or sent.
 */
export async function checkLocalFile(field: string, raw: string, kind: MediaKind, roots: string[]): Promise<LocalFile> {
  const fail = (rule: string): never => {
    throw new UserInputError(field, `local file ${basename(raw)}: ${rule}`);
  };
  const real = await confinePath(field, raw, roots);
  let fh: FileHandle | undefined;
  try {
    fh = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      (err: NodeJS.ErrnoException) => fail(`cannot be opened (${err.code ?? 'error'})`),
    );
    const info = await fh.stat({ bigint: true }).then((b) => ({ ...numbers(b), fileId: `${b.dev}:${b.ino}` }));
    if (!info.isFile) fail('is not a regular file (folders, devices, FIFOs and sockets are refused)');
    if (info.nlink > 1) fail(HARD_LINK_RULE(info.nlink));
    // O_NOFOLLOW guards the last name only: a folder of the path swapped for a symlink between confinePath and
    // the open would have opened a file outside the folders (review finding of issue 22). So the open file itself
    // must be inside: from here on only the descriptor is read, and the send-time check holds on to its identity.
    if (!(await openedInside(fh, real, info.fileId, roots))) {
      fail('changed while it was being opened (a folder of its path was replaced); nothing was read');
    }
    if (info.size === 0) fail('is empty');
    const cap = MAX_LOCAL_BYTES[kind];
    if (info.size > cap) {
      fail(`is ${(info.size / MiB).toFixed(1)} MiB; at most ${cap / MiB} MiB for ${kind}`);
    }
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await fh.read(head, 0, SNIFF_BYTES, 0);
    const type = sniffAs(kind, head.subarray(0, bytesRead));
    if (!type) fail(`content is not ${kind} (checked by its first bytes)`);
    const sha256 = await hashHandle(fh, info.size);
    return {
      path: real,
      filename: basename(real),
      size: info.size,
      contentType: type!.type,
      sha256,
      kind,
      fileId: info.fileId,
    };
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Whether the open file `fh` is inside the allowed folders. On Linux the kernel names the open file itself
 * (`/proc/self/fd/N`): no path is resolved again, so no later swap can fool it. Elsewhere (macOS, Windows) the
 * path is resolved, stat'ed and resolved again, and must stay inside and name the open file (`fileId`) throughout:
 * a swap must then happen twice inside a few system calls, which narrows the window but cannot close it.
 */
async function openedInside(fh: FileHandle, path: string, fileId: string, roots: string[]): Promise<boolean> {
  const realRoots = (await Promise.all(roots.map((r) => realpath(r).catch(() => undefined)))).filter(
    (r): r is string => r !== undefined,
  );
  const inside = (p: string | undefined) => p !== undefined && realRoots.some((r) => isInside(r, p));
  const opened = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => undefined);
  if (opened !== undefined) return inside(opened);
  const before = await realpath(path).catch(() => undefined);
  const named = await stat(path, { bigint: true }).catch(() => undefined);
  const after = await realpath(path).catch(() => undefined);
  return inside(before) && before === after && named !== undefined && `${named.dev}:${named.ino}` === fileId;
}

/** The facts of a bigint fstat the checks use (bigint so a large inode number is never rounded). */
function numbers(b: import('node:fs').BigIntStats): { isFile: boolean; size: number; nlink: number } {
  return { isFile: b.isFile(), size: Number(b.size), nlink: Number(b.nlink) };
}

/**
 * A hard link is the file itself under a second name: confinement by path cannot tell whether the file "lives"
 * inside the folders or was linked in from outside (a hard link to ~/.ssh/id_ed25519 named x.png, or to a file
 * the person never put there). So a regular file with more than one name is refused, whatever its other names
 * (we cannot list them). The fix is a copy, which the message says.
 */
export const HARD_LINK_RULE = (names: number) =>
  `has ${names} names (hard links); a hard-linked file may come from outside the allowed folders, so it is refused: put a copy of it in the folder (cp, not ln)`;

/** What the quote saw of a local file: where it is, which file it was, how long. */
export interface QuotedFile {
  field: string;
  path: string;
  size: number;
  fileId?: string;
}

/**
 * Opens, at send time, the file a quote checked (finding 3 of the issue-22 review): the path may have been swapped
 * since — for a symlink out of the allowed folders, a FIFO, a device, another file. So it is opened as at the quote
 * (O_NOFOLLOW: a symlink fails; O_NONBLOCK: a FIFO cannot block) and the open descriptor must be the same regular
 * file (`<dev>:<ino>`) of the same size; only then is anything read, and only from that descriptor. A quote without
 * a file identity (a record older than this check) is refused: it cannot be proven the same file.
 * @throws UserInputError naming the field; nothing has been read.
 */
export async function openQuotedFile(q: QuotedFile): Promise<FileHandle> {
  const fail = (rule: string): never => {
    throw new UserInputError(q.field, `local file ${basename(q.path)}: ${rule}; nothing was sent — ask again`);
  };
  if (!q.fileId) fail('was quoted without its file identity and cannot be proven the same file');
  const fh = await open(q.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (err: NodeJS.ErrnoException) => fail(`cannot be opened since the quote (${err.code ?? 'error'})`),
  );
  try {
    const b = await fh.stat({ bigint: true });
    if (!b.isFile()) fail('is no longer a regular file');
    if (`${b.dev}:${b.ino}` !== q.fileId) fail('was replaced by another file after it was quoted');
    if (Number(b.size) !== q.size) fail('changed size after it was quoted');
    return fh;
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/** sha256 of the first `size` bytes through one 1 MiB buffer: memory stays flat whatever the file's size. */
async function hashHandle(fh: FileHandle, size: number): Promise<string> {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(MiB);
  let pos = 0;
  while (pos < size) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return hash.digest('hex');
}
