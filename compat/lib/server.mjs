/**
 * How every client starts the server under test: the built product (`dist/src/index.js --sandbox`) on the pinned
 * Node 22, over stdio, with its own temp state dir and GENPLAT_CONFIRM unset (default `always`: the quote and
 * the confirmation token are exercised on every client that does not answer a consent form).
 *
 * The server's stderr goes to a log file through `server.sh` (`exec node … 2>>log`; no dash arguments, which
 * some CLIs would take as their own options), whatever stderr mode a framework
 * picks for its child (several inherit it): then everything printed in the client process is the framework's
 * own output, which is what the warning check reads.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const ENTRY = join(ROOT, 'dist/src/index.js');
// The product's pinned Node 22 (the server refuses Node < 22.13), whatever runs this script.
export const NODE = join(ROOT, 'node_modules/.bin/node');

/** A fresh state dir and the command/args/env a framework needs to spawn the server. */
export function serverSpec(label) {
  const stateDir = mkdtempSync(join(tmpdir(), `genplat-compat-${label}-`));
  const log = join(stateDir, 'server.log');
  return {
    stateDir,
    log,
    command: '/bin/sh',
    args: [join(import.meta.dirname, 'server.sh')],
    // Only what the server needs: no GENPLAT_CONFIRM (the default `always` is the flow under test).
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GENPLAT_STATE_DIR: stateDir,
      GENPLAT_COMPAT_NODE: NODE,
      GENPLAT_COMPAT_ENTRY: ENTRY,
      GENPLAT_COMPAT_SERVER_LOG: log,
    },
  };
}

/** The installed version of a package of this suite (its package.json, read directly: not every package exports it). */
export function pkgVersion(name, base = join(ROOT, 'compat')) {
  return JSON.parse(readFileSync(join(base, 'node_modules', name, 'package.json'), 'utf8')).version;
}
