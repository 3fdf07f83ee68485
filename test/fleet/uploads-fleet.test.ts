/**
 * Issue 22 in a fleet: two HTTP instances on one PostgreSQL store. An upload link handed out by instance A is
 * used on instance B (the link and its single use live in the store); B stages the upload into the store and
 * the simulator fetches identical bytes; a file staged through A's store is served by B's `/staged/` route
 * (any instance serves any staged file) and deleted after the accepted job's fetch.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { selfStager } from '../../src/files/stage-self.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { openConfiguredStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { png, sha256 } from '../files/media-bytes.js';
import { connectClient, sc, type TestClient, TOKEN_A, text } from '../http/helpers.js';
import { createTestDatabase, dropTestDatabases } from '../store/pg-helper.js';

let sim: Simulator;
const runtimes: HttpRuntime[] = [];
const clients: TestClient[] = [];
const dirs: string[] = [];
let store: Store;
let config: Config;

beforeAll(async () => {
  await dropTestDatabases();
  const databaseUrl = await createTestDatabase();
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  setTrustedMediaOrigins([sim.origin]);
  const log = createLogger('error', () => {});
  for (let i = 0; i < 2; i++) {
    const stateDir = await mkdtemp(join(tmpdir(), 'genplat-uploads-fleet-'));
    dirs.push(stateDir);
    const base = loadConfig(parseCli(['--http', '--port', '0']), {
      GENPLAT_API_KEY: sim.apiKey,
      GENPLAT_BASE_URL: sim.baseUrl,
      GENPLAT_STATE_DIR: stateDir,
      GENPLAT_DATABASE_URL: databaseUrl,
      GENPLAT_HTTP_TOKEN: TOKEN_A,
    });
    config = { ...base, vendors: sim.vendors, confirm: { mode: 'never' }, logLevel: 'error' };
    runtimes.push(await startHttpRuntime(config, log, { pollIntervalMs: 20, loopbackStaging: true }));
    clients.push(await connectClient(runtimes[i]!.http.url, TOKEN_A));
  }
  store = await openConfiguredStore(config, log);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const r of runtimes) await r.close();
  await store?.close();
  await sim?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  await dropTestDatabases();
});

const origin = (i: number) => new URL(runtimes[i]!.http.url).origin;

describe('uploads and staged files across instances (PostgreSQL)', () => {
  it("A's link is used on B, once; B's job gets the identical bytes", async () => {
    const [a, b] = [clients[0]!, clients[1]!];
    const l = sc(await a.call('request_upload', { kind: 'image' })) as { url: string; reference: string };
    expect(l.url.startsWith(origin(0))).toBe(true);
    const onB = `${origin(1)}${new URL(l.url).pathname}`;
    const bytes = png(1536 * 1024);
    const put = (url: string) => fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'image/png' } });
    expect((await put(onB)).status).toBe(200);
    expect((await put(l.url)).status).toBe(410);

    const r = await b.call('create_shoppable_image', {
      category: 'beauty',
      format: 'before_after',
      image_url: l.reference,
      context: 'shelf',
    });
    expect(r.isError, text(r)).toBeFalsy();
    const got = sim.fetched.entries().find((f) => f.sha256 === sha256(bytes));
    expect(got).toMatchObject({ field: 'image_url', size: bytes.length, type: 'image/png' });
  });

  it('a file staged through one instance is served by the other, then deleted once accepted and fetched', async () => {
    const blobs = store.blobs!();
    const stager = selfStager({ blobs, key: () => store.consentKey(), base: () => origin(0), ttlSeconds: 60 });
    const bytes = png(2 * 1024 * 1024 + 5);
    const staged = await stager.stage(Readable.from([bytes]), {
      size: bytes.length,
      contentType: 'image/png',
      ext: 'png',
    });
    await stager.accepted?.(staged.key);
    const onB = `${origin(1)}${new URL(staged.url).pathname}`;
    const res = await fetch(onB);
    expect(res.status).toBe(200);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(bytes));
    for (let i = 0; i < 1000 && (await blobs.get(staged.key)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await blobs.get(staged.key)).toBeUndefined();
    expect((await fetch(staged.url)).status).toBe(404);
  });
});
