/**
 * Issue 29 item 7: the sandbox rehearses local files and uploads with no bucket and no public URL.
 * - stdio `--sandbox`: the loopback staging listener (src/files/sandbox-staging.ts) serves a local WAV to the
 *   sandbox's own simulator, which fetches it byte for byte; the copy is gone once accepted and fetched; a refusal
 *   of the staged URL says the platform could not fetch a file this server staged, never "fix the input".
 * - `--sandbox --http`: request_upload's link is on loopback and says so; the upload reaches the simulator.
 * - The sandbox simulator fetches from this server's staging origin only: any other loopback URL is refused.
 * Real parts throughout: the sandbox simulator, the SQLite store, the SDK clients, HTTP on loopback.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig, parseCli } from '../../src/config.js';
import { type SandboxStaging, startSandboxStaging } from '../../src/files/sandbox-staging.js';
import { UPLOAD_LOOPBACK_NOTE } from '../../src/files/wording.js';
import { createLogger } from '../../src/log.js';
import { type SandboxSimulator, startSandbox } from '../../src/sim/sandbox.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { type HttpRuntime, startHttpRuntime } from '../../src/transports/http-main.js';
import { type Harness, startHarness, structured, text } from '../helpers/harness.js';
import { connectClient, sc, type TestClient, TOKEN_A } from '../http/helpers.js';
import { sha256, wav } from './media-bytes.js';

const quiet = createLogger('error', () => {});
const AVATAR = 'av_ava';

describe('stdio --sandbox: a local WAV, no bucket', () => {
  let dir: string;
  let sim: SandboxSimulator;
  let store: Store;
  let staging: SandboxStaging;
  let h: Harness;
  const bytes = wav(40_000);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genplat-sandbox-files-'));
    await mkdir(join(dir, 'inputs'));
    await writeFile(join(dir, 'inputs', 'voice.wav'), bytes);
    const config = loadConfig(parseCli(['--sandbox']), {
      GENPLAT_STATE_DIR: join(dir, 'state'),
      GENPLAT_INPUT_DIRS: join(dir, 'inputs'),
    });
    sim = await startSandbox(config, quiet);
    store = await openSqliteStore(config.stateDir);
    const started = await startSandboxStaging({ config, jobs: store, sim, log: quiet });
    if (!started) throw new Error('no sandbox staging');
    staging = started;
    h = await startHarness({
      sim,
      store: async () => store,
      files: staging.files,
      config: { files: config.files },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await staging?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('does not list request_upload (stdio names files by path)', async () => {
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('request_upload');
    expect(names).toContain('save_outputs');
  });

  it('stages the file on its loopback listener; the simulator fetches identical bytes from there; copy gone', async () => {
    const r = await h.call('create_talking_video', {
      avatar_id: AVATAR,
      voice_script: 'Read from a file on this machine.',
      voice_url: join(dir, 'inputs', 'voice.wav'),
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect(['submitted', 'processing', 'completed']).toContain(structured(r).status);
    const got = sim.fetched.entries();
    expect(got).toEqual([
      expect.objectContaining({ field: 'voice_url', size: bytes.length, sha256: sha256(bytes), type: 'audio/wav' }),
    ]);
    expect(got[0]?.path).toMatch(/^\/staged\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // The POST named this server's staging origin, nothing else.
    const post = sim.log.entries().find((e) => e.method === 'POST');
    expect(JSON.stringify(post)).not.toContain('voice.wav');
    // Accepted and fetched: the staged copy is deleted (staged-route.ts); the listener now answers 404.
    const again = await fetch(`${staging.origin}${got[0]?.path}`);
    expect(again.status).toBe(404);
  });

  it('a refusal of the staged URL says the platform could not fetch it, never "fix the input"', async () => {
    await staging.close(); // the "platform" can no longer reach this server
    const r = await h.call('create_talking_video', {
      avatar_id: AVATAR,
      voice_script: 'The listener is gone.',
      voice_url: join(dir, 'inputs', 'voice.wav'),
    });
    expect(r.isError).toBe(true);
    const said = text(r);
    expect(said).toContain('The platform could not fetch voice_url, a file this server staged for it');
    expect(said).toContain('GENPLAT_PUBLIC_URL');
    expect(said.toLowerCase()).not.toContain('fix the input');
  });
});

describe('--sandbox --http: request_upload and the staged file, no bucket, no public URL', () => {
  let dir: string;
  let rt: HttpRuntime;
  let a: TestClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genplat-sandbox-http-'));
    const base = loadConfig(parseCli(['--sandbox', '--http', '--port', '0']), {
      GENPLAT_STATE_DIR: dir,
      GENPLAT_HTTP_TOKEN: TOKEN_A,
    });
    const config: Config = { ...base, confirm: { mode: 'never' } };
    rt = await startHttpRuntime(config, quiet, { pollIntervalMs: 20 });
    a = await connectClient(rt.http.url, TOKEN_A);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await rt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists request_upload, not save_outputs (it would write to the server)', async () => {
    const names = (await a.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('request_upload');
    expect(names).not.toContain('save_outputs');
  });

  it('a loopback link that says so → PUT → upload:<id> → the simulator fetches identical bytes', async () => {
    const link = sc(await a.call('request_upload', { kind: 'audio', filename: 'voice.wav' }));
    expect(String(link.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/upload\//);
    expect(link.note).toBe(UPLOAD_LOOPBACK_NOTE);
    const bytes = wav(20_000);
    const up = await fetch(String(link.url), {
      method: 'PUT',
      body: bytes,
      headers: { 'content-type': 'audio/wav', 'x-filename': 'voice.wav' },
    });
    expect(up.status).toBe(200);
    const r = await a.call('create_talking_video', {
      avatar_id: AVATAR,
      voice_script: 'Uploaded through the page.',
      voice_url: link.reference,
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect(rt.sim?.fetched.entries()).toEqual([
      expect.objectContaining({ field: 'voice_url', size: bytes.length, sha256: sha256(bytes) }),
    ]);
  });

  it('the sandbox simulator fetches from this server only: any other loopback URL is refused', async () => {
    const sim = rt.sim;
    if (!sim) throw new Error('no sandbox simulator');
    const res = await fetch(`${sim.baseUrl}/video/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sim.apiKey },
      body: JSON.stringify({
        avatar_id: AVATAR,
        voice_script: 'not ours',
        voice_url: `http://127.0.0.1:${rt.http.port + 1}/staged/x.y`,
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('voice_url: must be a public http(s) URL');
  });
});
