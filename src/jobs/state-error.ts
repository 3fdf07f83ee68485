/**
 * A file or folder in the state dir (GENPLAT_STATE_DIR) that cannot be used: damaged, of the wrong type, not
 * writable. Raised by the store where the file is touched, so the message names the exact path and the fix;
 * the runtime shows it as a tool error (nothing sent) and the server keeps serving.
 */
import { GenplatError } from '../errors.js';

export class StateError extends GenplatError {
  readonly path: string;
  constructor(path: string, problem: string, fix: string) {
    super(`State file problem: ${path} ${problem} (GENPLAT_STATE_DIR). Nothing was sent or charged.`, fix);
    this.path = path;
  }

  /**
   * The StateError for a file-system failure on `path`; anything that is not a file-system error (or is
   * already a GenplatError) is returned unchanged.
   */
  static from(err: unknown, path: string): unknown {
    if (err instanceof GenplatError) return err;
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') return err;
    const [problem, fix] = CODES[code] ?? [
      `cannot be used (${code})`,
      'Check the state dir (GENPLAT_STATE_DIR) and its files, then call again.',
    ];
    return new StateError(path, problem, fix);
  }
}

const MOVE_OR_REPOINT = 'or point GENPLAT_STATE_DIR at another folder, then call again.';

/** errno → [what is wrong with the path, how to fix it]. */
const CODES: Record<string, [string, string]> = {
  ENOTDIR: [
    'cannot be reached: a part of it is a file, not a folder',
    `Move that file away so GENPLAT_STATE_DIR is a folder, ${MOVE_OR_REPOINT}`,
  ],
  EISDIR: ['is a folder where a file belongs', `Remove that folder (genplat-mcp creates the file), ${MOVE_OR_REPOINT}`],
  EACCES: ['is not writable by this user', `Give this user write access to it, ${MOVE_OR_REPOINT}`],
  EPERM: ['is not writable by this user', `Give this user write access to it, ${MOVE_OR_REPOINT}`],
  EROFS: ['is on a read-only file system', `Point GENPLAT_STATE_DIR at a writable folder, then call again.`],
  ENOSPC: ['cannot be written: the disk is full', 'Free some disk space, then call again.'],
  EDQUOT: ['cannot be written: the disk quota is exhausted', 'Free some space in the quota, then call again.'],
};
