/**
 * The uploads fixture (issue 22): the real `startHttpRuntime` on a SQLite store with self-served staging on
 * (`loopbackStaging`, the test-only stand-in for GENPLAT_PUBLIC_URL), a simulator that fetches loopback media,
 * two callers' SDK clients, a movable clock (`skew`) to expire links without sleeping, every log line kept,
 * and the store opened beside it to look at blob rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchLike } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { setTrustedMediaOrigins } from '../../src/guards/url.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import type { BlobStore } from '../../src/store/blobs.js';
import { openConfiguredStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { connectClient, sc, type TestClient, TOKEN_A, TOKEN_B, text } from '../http/helpers.js';

export interface UploadsFixture {
  sim: Simulator;
  rt: HttpRuntime;
  store: Store;
  blobs: BlobStore;
  /** Callers A and B (different owners). */
  a: TestClient;
  b: TestClient;
  logLines: string[];
  /** Milliseconds added to the runtime's clock. */
  skew: number;
  now(): number;
  close(): Promise<void>;
}

export interface UploadLinkAnswer {
  url: string;
  reference: string;
  expires_at: string;
  max_bytes: number;
}

/** How callers A and B connect (default: bearer tokens A and B); issue 28 passes Slack people or a bot's people. */
export interface UploadsCallers {
  a: { token: string; fetch?: FetchLike };
  b: { token: string; fetch?: FetchLike };
}

/** `env`: more settings, as an operator writes them (e.g. GENPLAT_UPLOAD_IDLE_S). */
export async function startUploadsFixture(
  env: Record<string, string> = {},
  callers: UploadsCallers = { a: { token: TOKEN_A }, b: { token: TOKEN_B } },
): Promise<UploadsFixture> {
  const sim = await startSimulator({ timing: 'test', fetchMedia: true });
  setTrustedMediaOrigins([sim.origin]);
  const stateDir = await mkdtemp(join(tmpdir(), 'genplat-uploads-'));
  const base = loadConfig(parseCli(['--http', '--port', '0']), {
    GENPLAT_API_KEY: sim.apiKey,
    GENPLAT_BASE_URL: sim.baseUrl,
    GENPLAT_STATE_DIR: stateDir,
    GENPLAT_HTTP_TOKEN: `${TOKEN_A},${TOKEN_B}`,
    ...env,
  });
  const config: Config = { ...base, vendors: sim.vendors, confirm: { mode: 'never' }, logLevel: 'debug' };
  const logLines: string[] = [];
  const fx = {
    skew: 0,
    now: () => Date.now() + fx.skew,
  };
  const rt = await startHttpRuntime(
    config,
    createLogger('debug', (l) => logLines.push(l)),
    { pollIntervalMs: 20, now: () => fx.now(), loopbackStaging: true },
  );
  const store = await openConfiguredStore(
    config,
    createLogger('error', () => {}),
  );
  const connect = (c: UploadsCallers['a']) => connectClient(rt.http.url, c.token, c.fetch ? { fetch: c.fetch } : {});
  const a = await connect(callers.a);
  const b = await connect(callers.b);
  return Object.assign(fx, {
    sim,
    rt,
    store,
    blobs: store.blobs!(),
    a,
    b,
    logLines,
    async close() {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
      await rt.close();
      await store.close();
      await sim.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  });
}

export async function requestLink(c: TestClient, kind: 'image' | 'audio' | 'video', filename?: string) {
  const r = await c.call('request_upload', { kind, ...(filename ? { filename } : {}) });
  expect(r.isError, text(r)).toBeFalsy();
  return sc(r) as unknown as UploadLinkAnswer;
}

/** How many 1 MiB rows the blob `id` has in the store. */
export async function chunkCount(blobs: BlobStore, id: string): Promise<number> {
  let n = 0;
  while (await blobs.chunk(id, n)) n++;
  return n;
}

/** A shoppable image job naming `image_url`, waited to its end; returns the create answer. */
export async function shoppableImage(c: TestClient, imageUrl: string) {
  const r = await c.call('create_shoppable_image', {
    category: 'beauty',
    format: 'before_after',
    image_url: imageUrl,
    context: 'clean bathroom shelf',
  });
  if (!r.isError && sc(r).status !== 'completed') {
    const w = await c.call('wait_for_jobs', { handles: [sc(r).handle], max_wait_s: 30 });
    expect(text(w)).toContain('completed');
  }
  return r;
}
