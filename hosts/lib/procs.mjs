/**
 * The processes around a host run: the standalone simulator (`genplat-mcp sim`: its stderr logs every platform
 * request, which is how POSTs are counted), our server over HTTP (`--http`, bearer token), and the server's
 * tools/list (the names every host must offer), and `genplat-mcp install` (our stdio or HTTP entry in a host's config). All on the pinned Node 22 (the server refuses Node < 22.13).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const ENTRY = join(ROOT, 'dist/src/index.js');
export const NODE = join(ROOT, 'node_modules/.bin/node');

/** Waits until `re` matches the accumulated text of `stream`, or fails after `ms`. */
function waitFor(stream, re, ms, what) {
  return new Promise((res, rej) => {
    let text = '';
    const timer = setTimeout(() => rej(new Error(`${what}: no ${re} after ${ms} ms: ${text.slice(-600)}`)), ms);
    stream.on('data', (c) => {
      text += c;
      const m = re.exec(text);
      if (m) {
        clearTimeout(timer);
        res(m);
      }
    });
  });
}

/** Stops a child we started (by its own pid) and waits for it. */
export function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(t);
      res();
    });
    child.kill('SIGTERM');
  });
}

/** `genplat-mcp sim --port 0 --reset` in `dir` (its request log also in `dir/sim.log`); `posts()` = POSTs to /video/generate. */
export async function startSim(dir) {
  mkdirSync(dir, { recursive: true });
  const child = spawn(NODE, [ENTRY, 'sim', '--port', '0', '--state-dir', dir, '--reset'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const file = createWriteStream(join(dir, 'sim.log'));
  child.stderr.setEncoding('utf8').on('data', (c) => {
    log += c;
    const at = new Date().toISOString();
    file.write(c.replace(/^(?=.)/gm, `${at} `));
  });
  child.stdout.setEncoding('utf8');
  const m = await waitFor(child.stdout, /^(http\S+)\n(\S+)\n/, 15_000, 'simulator');
  return {
    child,
    baseUrl: m[1],
    apiKey: m[2],
    posts: () => (log.match(/\] POST \S*\/video\/generate -> /g) ?? []).length,
    log: () => log,
  };
}

/** Our server's environment: the standalone simulator as the platform, consent by token (no form). */
export function serverEnv(sim, stateDir) {
  return {
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_STATE_DIR: stateDir,
    // Headless hosts answer a consent form with cancel/decline by themselves: the token flow is the one tested.
    GENPLAT_ELICITATION: 'off',
  };
}

/** `genplat-mcp --http --port 0` with a bearer token; resolves with its /mcp URL. */
export async function startHttpServer(env, logFile, token) {
  const child = spawn(NODE, [ENTRY, '--http', '--port', '0'], {
    env: { PATH: process.env.PATH, ...env, GENPLAT_HTTP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.setEncoding('utf8');
  child.stderr.pipe(createWriteStream(logFile));
  const m = await waitFor(child.stderr, /ready on (http:\S+\/mcp)/, 20_000, 'http server');
  return { child, url: m[1] };
}

/** The tool names our server lists to a client without MCP Apps (what every host here is). */
export async function serverToolNames(env) {
  const child = spawn(NODE, [ENTRY], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdout.setEncoding('utf8');
  const send = (m) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hosts-suite', version: '0' } },
  });
  await waitFor(child.stdout, /"id":1/, 15_000, 'initialize');
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list', params: {} });
  let text = '';
  child.stdout.on('data', (c) => {
    text += c;
  });
  await waitFor(child.stdout, /"id":2.*\n/, 15_000, 'tools/list');
  await stop(child);
  const line = text.split('\n').find((l) => l.includes('"id":2'));
  return JSON.parse(line).result.tools.map((t) => t.name);
}

/**
 * Our entry written into `configFile` by the product's own installer, as a user would run it. stdio
 * (`server.stdio`): `genplat-mcp install <hostId> --config <configFile> --trust --headless` with the run's HOME and
 * the standalone simulator's GENPLAT_BASE_URL + GENPLAT_API_KEY in its environment (and nothing else of ours).
 * HTTP (`server.http`): `genplat-mcp install <hostId> --http <url> --config <configFile> --trust` with the server's
 * GENPLAT_HTTP_TOKEN in its environment, as a user who has it set would (the entry must still only reference it;
 * run.mjs checks no config under HOME holds it). It merges into the file the suite wrote first; the host's own
 * settings the installer does not write are added after it by the host's file. Throws with the installer's
 * output when it refuses (exit 2).
 */
export function genplatInstall(hostId, configFile, server) {
  const argv = [ENTRY, 'install', hostId, '--config', configFile, '--trust'];
  const env = { PATH: `${dirname(NODE)}:/usr/bin:/bin` };
  if (server.http) {
    argv.push('--http', server.http.url);
    Object.assign(env, { HOME: server.http.home, GENPLAT_HTTP_TOKEN: server.http.token });
  } else {
    argv.push('--headless');
    const { home, baseUrl, apiKey } = server.stdio;
    Object.assign(env, { HOME: home, GENPLAT_BASE_URL: baseUrl, GENPLAT_API_KEY: apiKey });
  }
  const r = spawnSync(NODE, argv, { encoding: 'utf8', env });
  if (r.status !== 0)
    throw new Error(`genplat-mcp install ${hostId} exited ${r.status}: ${`${r.stdout}${r.stderr}`.trim() || r.error}`);
  return r.stdout;
}
