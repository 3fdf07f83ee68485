/**
 * Which Node.js the host should start the server with. A host runs `"command": "node"` with ITS PATH, where the
 * first node is often older than 22.13 (Gemini CLI itself runs on Node 20): the server then exits at once and
 * the host says only "Disconnected" (mcp-notes §9). So `install` writes an absolute path to a node that
 * qualifies: the one named with --node, else the running one, else the checkout's pinned one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MIN_NODE, nodeVersionProblem } from '../node-version.js';

export interface NodeChoice {
  path: string;
  version: string;
  /** How it was found, for the report. */
  source: string;
}

/** `node -p process.version` of the binary at `path`, or undefined when it does not run. */
function versionOf(path: string): string | undefined {
  // 10 s: a cold node prints its version in well under a second even on a loaded 2-core box.
  const r = spawnSync(path, ['-p', 'process.version'], { encoding: 'utf8', timeout: 10_000 });
  const v = r.status === 0 ? r.stdout.trim() : '';
  return /^v\d+\.\d+\.\d+/.test(v) ? v : undefined;
}

const MIN = `>= ${MIN_NODE.join('.')}`;

/**
 * @returns the node to write, or the one-line reason none qualifies (the caller exits 2 with it).
 * `given` (--node) is never silently replaced by another: the user named it.
 */
export function findNode(opts: {
  given?: string | undefined;
  root: string;
  execPath?: string;
  version?: string;
}): NodeChoice | { problem: string } {
  const execPath = opts.execPath ?? process.execPath;
  const running = opts.version ?? process.version;
  if (opts.given !== undefined) {
    const path = resolve(opts.given);
    if (!existsSync(path)) return { problem: `--node ${opts.given}: no such file` };
    const version = versionOf(path);
    if (!version) return { problem: `--node ${path} does not run as Node.js (\`${path} --version\` failed)` };
    if (nodeVersionProblem(version))
      return {
        problem: `--node ${path} is Node.js ${version}; the server needs ${MIN}. Name a newer one, or leave --node out (install then uses ${nodeVersionProblem(running) ? "this checkout's pinned Node.js when it has one" : `${execPath}, ${running}`}).`,
      };
    return { path, version, source: '--node' };
  }
  if (!nodeVersionProblem(running))
    return { path: execPath, version: running, source: 'the Node.js running this command' };
  const tried = [`${execPath} (${running})`];
  for (const rel of [
    ['node_modules', 'node', 'bin', 'node'],
    ['node_modules', '.bin', 'node'],
  ]) {
    const path = join(opts.root, ...rel);
    if (!existsSync(path)) continue;
    const version = versionOf(path);
    if (version && !nodeVersionProblem(version)) return { path, version, source: "this checkout's pinned Node.js" };
    tried.push(`${path} (${version ?? 'does not run'})`);
  }
  return {
    problem: `no Node.js ${MIN} found (tried ${tried.join(', ')}): install Node.js 22 LTS or newer from https://nodejs.org and run install with it, or name one with --node PATH.`,
  };
}
