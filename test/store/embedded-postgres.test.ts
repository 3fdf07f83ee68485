/**
 * The embedded PostgreSQL that test/helpers/postgres-server.ts starts when nothing answers on 127.0.0.1:5432 (a
 * laptop with no PostgreSQL). CI has a server there, so without this file the embedded path would only ever run
 * on the machines that have no CI: here it starts, serves SQL, and leaves nothing behind, on every run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { answers, type EmbeddedPostgresServer, startEmbeddedPostgres } from '../helpers/postgres-server.js';

const HELPER = new URL('../helpers/postgres-server.ts', import.meta.url).pathname;

describe('embedded PostgreSQL for the tests', () => {
  let server: EmbeddedPostgresServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('starts a real server from npm, serves SQL, and stop() removes it and its data directory', async () => {
    server = await startEmbeddedPostgres();
    const url = new URL(server.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(existsSync(server.dataDir)).toBe(true);
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      const v = await c.query<{ n: string }>(`SELECT current_setting('server_version_num') AS n`);
      expect(Number(v.rows[0]!.n)).toBeGreaterThanOrEqual(150000);
      // What the store needs beyond plain tables: its databases, transactions and LISTEN/NOTIFY.
      await c.query('CREATE DATABASE genplat_embedded_probe');
      await c.query('BEGIN');
      await c.query('CREATE TEMP TABLE t (x int)');
      await c.query('INSERT INTO t VALUES (1), (2)');
      expect((await c.query('SELECT sum(x)::int AS s FROM t')).rows[0]).toEqual({ s: 3 });
      await c.query('COMMIT');
      const heard = new Promise<string | undefined>((r) => c.once('notification', (n) => r(n.payload)));
      await c.query('LISTEN probe');
      await c.query(`NOTIFY probe, 'hello'`);
      expect(await heard).toBe('hello');
    } finally {
      await c.end();
    }
    const { dataDir } = server;
    const port = Number(url.port);
    await server.stop();
    server = undefined;
    expect(existsSync(dataDir)).toBe(false);
    expect(await answers('127.0.0.1', port)).toBe(false);
  });

  it('loading the package leaves a failing run failing: the exit code vitest sets survives the loop draining', () => {
    // In a fresh process, as in vitest's main process: async-exit-hook's `beforeExit` handler called
    // process.exit(0), so a run with failed tests exited 0 whenever the embedded server was in use.
    const child = spawnSync(
      process.execPath,
      [
        '--no-warnings',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(HELPER)}); await m.loadEmbeddedPostgres(); process.exitCode = 3;`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
  });

  it('answers() tells a listening port from a closed one', async () => {
    const srv = createServer((s) => s.destroy());
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as { port: number };
    expect(await answers('127.0.0.1', port)).toBe(true);
    await new Promise((r) => srv.close(r));
    expect(await answers('127.0.0.1', port)).toBe(false);
  });
});
