/**
 * `genplat-mcp doctor`: each check's verdict and fix, exit code 0/1, and the key never in its output.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';

let sim: Simulator;
let stateDir: string;
beforeAll(async () => {
  sim = await startSimulator({ timing: 'test' });
  stateDir = await mkdtemp(join(tmpdir(), 'genplat-doctor-'));
});
afterAll(async () => {
  await sim.close();
  await rm(stateDir, { recursive: true, force: true });
});

async function doctor(env: NodeJS.ProcessEnv, argv: string[] = ['doctor']) {
  const lines: string[] = [];
  const code = await runDoctor({ argv, env, out: (l) => lines.push(l), timeoutMs: 5000 });
  return { code, out: lines.join('\n') };
}

describe('doctor', () => {
  beforeEach(() => sim.log.clear());
  it('passes with a good key and base URL, and shows only the key length', async () => {
    const { code, out } = await doctor({
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_STATE_DIR: stateDir,
    });
    expect(out).toContain(`GENPLAT_API_KEY: set, ${sim.apiKey.length} characters`);
    expect(out).toMatch(/✓ the key works: GET \/video\/avatars listed \d+ avatar/);
    expect(out).toMatch(/✓ state dir .* is writable/);
    expect(out).toMatch(
      /✓ job store: SQLite .*genplat\.db \(schema \d+, this genplat-mcp writes \d+\); \d+ recent job/,
    );
    expect(out).toContain('All checks passed.');
    expect(out).not.toContain(sim.apiKey);
    expect(code).toBe(0);
    // One free read, nothing else.
    expect(sim.log.entries().map((e) => `${e.method} ${e.path}`)).toEqual(['GET /video/avatars']);
  });

  it('passes with --sandbox and no key at all', async () => {
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: stateDir }, ['doctor', '--sandbox']);
    expect(out).toContain('not needed in --sandbox');
    expect(out).toContain('All checks passed.');
    expect(code).toBe(0);
  });

  it('explains a rejected key (401) without printing it', async () => {
    const bad = 'sk-wrong-key-0123456789';
    const { code, out } = await doctor({
      GENPLAT_API_KEY: bad,
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_STATE_DIR: stateDir,
    });
    expect(code).toBe(1);
    expect(out).toMatch(/✗ the platform refused the key \(401/);
    expect(out).toMatch(/fix: Set GENPLAT_API_KEY/);
    expect(out).toContain(`set, ${bad.length} characters`);
    expect(out).not.toContain(bad);
  });

  it('explains an unreachable base URL', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const { code, out } = await doctor({
      GENPLAT_API_KEY: 'sk-some-key-0123456789',
      GENPLAT_BASE_URL: `http://127.0.0.1:${port}/api`,
      GENPLAT_STATE_DIR: stateDir,
    });
    expect(code).toBe(1);
    expect(out).toMatch(/✗ the base URL is unreachable/);
    expect(out).toMatch(/fix: Check GENPLAT_BASE_URL/);
  });

  it('explains a wrong base URL path (404)', async () => {
    const { code, out } = await doctor({
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_BASE_URL: `${sim.origin}/wrong-prefix`,
      GENPLAT_STATE_DIR: stateDir,
    });
    expect(code).toBe(1);
    expect(out).toMatch(/✗ .*(404|not like the platform)/);
    expect(out).toMatch(/fix: .*GENPLAT_BASE_URL/);
  });

  it('lists every configuration problem and exits 1', async () => {
    const { code, out } = await doctor({ GENPLAT_BASE_URL: 'http://api.example.com', GENPLAT_CONFIRM: 'sometimes' });
    expect(code).toBe(1);
    expect(out).toMatch(/✗ config: GENPLAT_BASE_URL must use https/);
    expect(out).toMatch(/✗ config: GENPLAT_CONFIRM must be/);
    expect(out).toMatch(/✗ config: GENPLAT_API_KEY is required/);
  });

  it.skipIf(process.getuid?.() === 0)('reports a state dir it cannot write', async () => {
    const ro = await mkdtemp(join(tmpdir(), 'genplat-doctor-ro-'));
    await writeFile(join(ro, 'x'), '');
    await chmod(ro, 0o500);
    try {
      const { code, out } = await doctor({ GENPLAT_STATE_DIR: join(ro, 'state') }, ['doctor', '--sandbox']);
      expect(code).toBe(1);
      expect(out).toMatch(/✗ state dir .* is not writable/);
    } finally {
      await chmod(ro, 0o700);
      await rm(ro, { recursive: true, force: true });
    }
  });

  it('reports a state dir that is a file', async () => {
    const file = join(stateDir, 'not-a-dir');
    await writeFile(file, 'x');
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: file }, ['doctor', '--sandbox']);
    expect(code).toBe(1);
    expect(out).toMatch(/✗ state dir .* is not writable \((ENOTDIR|EEXIST)\)/);
    expect(out).toMatch(/fix: Set GENPLAT_STATE_DIR/);
  });

  it('reports a spool that cannot be written (its ids would live only in memory)', async () => {
    const dir = join(stateDir, 'spool-blocked');
    // --sandbox keeps its state in <state dir>/sandbox; there the spool path is a file: no journal can be made.
    await mkdir(join(dir, 'sandbox'), { recursive: true });
    await writeFile(join(dir, 'sandbox', 'spool'), 'x');
    const { code, out } = await doctor({ GENPLAT_STATE_DIR: dir }, ['doctor', '--sandbox']);
    expect(code).toBe(1);
    expect(out).toMatch(/✗ spool: .*spool cannot be written \((ENOTDIR|EEXIST)\)/);
    expect(out).toMatch(/NOT RECORDED ANYWHERE/);
  });

  it('reports a PostgreSQL store with its schema and connectivity, and never the password', async () => {
    const { createTestDatabase, dropTestDatabases } = await import('../store/pg-helper.js');
    const url = new URL(await createTestDatabase());
    url.password = 'doctor-secret-pw';
    try {
      const env = { GENPLAT_API_KEY: sim.apiKey, GENPLAT_BASE_URL: sim.baseUrl, GENPLAT_STATE_DIR: stateDir };
      const ok = await doctor({ ...env, GENPLAT_DATABASE_URL: url.toString() });
      // trust auth on the test server accepts any password; the point is it never appears.
      expect(ok.out).toMatch(/✓ job store: PostgreSQL .*\(schema \d+, this genplat-mcp writes \d+; connected\)/);
      expect(ok.out).not.toContain('doctor-secret-pw');
      const down = new URL(url);
      down.port = '9';
      const bad = await doctor({ ...env, GENPLAT_DATABASE_URL: down.toString() });
      expect(bad.out).toMatch(/✗ the PostgreSQL job store \(GENPLAT_DATABASE_URL\) does not open/);
      expect(bad.out).not.toContain('doctor-secret-pw');
      expect(bad.code).toBe(1);
    } finally {
      await dropTestDatabases();
    }
  });

  describe('--http (issue 20 item 5): what the HTTP mode needs', () => {
    it('fails without a token or OAuth, naming the fix (the server would refuse to start)', async () => {
      const { code, out } = await doctor({ GENPLAT_STATE_DIR: stateDir }, [
        'doctor',
        '--sandbox',
        '--http',
        '--port',
        '0',
      ]);
      expect(out).toContain(
        '✗ HTTP mode: no GENPLAT_HTTP_TOKEN, no OAuth (GENPLAT_OAUTH_ISSUER) and no Slack auth (GENPLAT_SLACK_SIGNING_SECRETS): the server refuses to start',
      );
      expect(out).toContain('fix: Set GENPLAT_HTTP_TOKEN to a random value of 16+ characters');
      expect(out).not.toContain('All checks passed.');
      expect(code).toBe(1);
    });

    it('fails for a port another process holds; passes with a token and a free port', async () => {
      const holder = createServer();
      await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
      const port = (holder.address() as AddressInfo).port;
      try {
        const env = { GENPLAT_STATE_DIR: stateDir, GENPLAT_HTTP_TOKEN: 'doctor-token-0123456789abcdef' };
        const taken = await doctor(env, ['doctor', '--sandbox', '--http', '--port', String(port)]);
        expect(taken.out).toContain(`✗ HTTP mode: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
        expect(taken.out).toContain('pick another with --port / GENPLAT_HTTP_PORT');
        expect(taken.code).toBe(1);
        const free = await doctor(env, ['doctor', '--sandbox', '--http', '--port', '0']);
        expect(free.out).toContain('✓ HTTP mode: 1 bearer token(s) set');
        expect(free.out).toContain('✓ HTTP mode: 127.0.0.1:0 is free');
        expect(free.out).not.toContain(env.GENPLAT_HTTP_TOKEN);
        expect(free.out).toContain('All checks passed.');
        expect(free.code).toBe(0);
      } finally {
        holder.close();
      }
    });

    it('names the Node it runs on and that it is new enough', async () => {
      const { out } = await doctor({ GENPLAT_STATE_DIR: stateDir }, ['doctor', '--sandbox']);
      expect(out).toContain(`✓ Node ${process.versions.node} at ${process.execPath}`);
      expect(out).toContain('• mode: stdio (add --http to check the HTTP mode)');
    });
  });
});
