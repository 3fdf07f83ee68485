/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`, the product's devDependency; SDK v1 inside, so
 * the 2025-11-25 era). It starts the server for every call, so this client is also "a fresh process per call":
 * the quote, the confirmed call and the waits each meet a new server on the same state dir (the sandbox and
 * the consent key persist there). Its stdout is the JSON result; its stderr is its own output (captured).
 * Quirk (mcp-notes 3.2): the CLI reads '../package.json' relative to its cwd, so it runs from dist/.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { check, firstText, paidFlow, parseToolText } from '../lib/flow.mjs';
import { NODE, pkgVersion, ROOT, serverSpec } from '../lib/server.mjs';

const run$ = promisify(execFile);
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');

export const NAME = 'MCP Inspector CLI';
export const version = () => pkgVersion('@modelcontextprotocol/inspector-cli', ROOT);

export async function run({ label, result }) {
  const spec = serverSpec(label);
  result.stateDir = spec.stateDir;
  const envFlags = Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const inspect = async (method) => {
    const { stdout, stderr } = await run$(
      NODE,
      // The target first, the method last: --tool-arg is variadic and would swallow what follows it.
      [CLI, '--cli', ...envFlags, spec.command, ...spec.args, ...method],
      { cwd: join(ROOT, 'dist'), timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
    );
    if (stderr) process.stderr.write(stderr);
    return JSON.parse(stdout);
  };
  const listed = (await inspect(['--method', 'tools/list'])).tools.map((t) => t.name);
  const invoke = async (name, args) => {
    // --tool-arg values are JSON-parsed by the CLI when they parse (arrays, numbers), else kept as strings.
    const pairs = Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    const r = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      name,
      ...(pairs.length ? ['--tool-arg', ...pairs] : []),
    ]);
    check(!r.isError, `${name} is an error`, r.content);
    return r.structuredContent ?? parseToolText(firstText(r.content, name), name);
  };
  const flow = await paidFlow(invoke, label);
  // tools/list is one more CLI call (and one more server process).
  return { toolsLoaded: listed.length, toolNames: listed, flowCompleted: true, ...flow, calls: flow.calls + 1 };
}
