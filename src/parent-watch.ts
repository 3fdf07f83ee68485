/**
 * Started through npm (`npx genplat-mcp`, `npm exec`, `npm run`), the server runs under `npm → sh -c → node`.
 * A SIGTERM to the pid that was started (npm's: what a host or a supervisor holds) ends npm and the shell but
 * never reaches this process, which is left running under init with its port held (issue 20; verified with
 * npm 10: the server outlived `kill <npx pid>`). So when npm started us, we watch our parent: once it is gone
 * (our parent pid changes), we stop as for SIGTERM. Only then: a server started directly and detached on
 * purpose (`nohup genplat-mcp --http &`, then the shell exits) must keep running.
 */

import { readFileSync } from 'node:fs';

/** npm sets these for every script and `npm exec` / `npx` child. */
export const startedByNpm = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.npm_execpath || env.npm_command || env.npm_lifecycle_event);

/**
 * Calls `onGone` once when the parent process exits. 1 s between looks: a stopped wrapper's port is free
 * again within about a second, and a `process.ppid` read costs nothing.
 * @returns a function that stops watching.
 */
export function watchParent(onGone: () => void, intervalMs = 1_000): () => void {
  // Compared with the parent we had when this module loaded, not when the watch starts: a wrapper stopped while
  // the server was still starting (before it listened) would otherwise leave us under init with nothing to
  // notice (seen in CI: the test's SIGTERM won the race).
  const parent = STARTED_UNDER.ppid;
  const npm = STARTED_UNDER.npm;
  const timer = setInterval(() => {
    if (process.ppid === parent && (npm === undefined || alive(npm))) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  // Never what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Our parent and npm ancestor as they were when this module loaded (early in start-up). Under
 * `npm → sh -c → node` a shell that outlives npm keeps our parent pid unchanged: npm itself is watched too.
 */
const STARTED_UNDER: { ppid: number; npm: number | undefined } = {
  ppid: process.ppid,
  npm: startedByNpm(process.env) ? npmAncestor() : undefined,
};

/** Whether a process exists (signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The nearest ancestor (up to 4 levels) that is npm or npx, read from /proc on Linux; undefined elsewhere or
 * when none is found (the parent pid check alone then applies).
 */
function npmAncestor(): number | undefined {
  let pid = process.ppid;
  for (let level = 0; level < 4 && pid > 1; level++) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (/\bnp[mx](-cli)?(\.js)?\b/.test(cmd)) return pid;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state, then ppid.
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
