/**
 * Started through npm (`npx genplat-mcp`, `npm exec`, `npm run`), the server runs under `npm → sh -c → node`.
 * A SIGTERM to the pid that was started (npm's: what a host or a supervisor holds) ends npm and the shell but
 * never reaches this process, which is left running under init with its port held (issue 20; verified with
 * npm 10: the server outlived `kill <npx pid>`). So when npm started us, we watch our parent: once it is gone
 * (our parent pid changes), we stop as for SIGTERM. Only then: a server started directly and detached on
 * purpose (`nohup genplat-mcp --http &`, then the shell exits) must keep running.
 */

/** npm sets these for every script and `npm exec` / `npx` child. */
export const startedByNpm = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.npm_execpath || env.npm_command || env.npm_lifecycle_event);

/**
 * Calls `onGone` once when the parent process exits. 1 s between looks: a stopped wrapper's port is free
 * again within about a second, and a `process.ppid` read costs nothing.
 * @returns a function that stops watching.
 */
export function watchParent(onGone: () => void, intervalMs = 1_000): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  // Never what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
