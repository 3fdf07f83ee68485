/**
 * Issue 22: the client's MCP roots are the allowed folders (a 2025-era stdio client that declares `roots`), and
 * consent binds a local file's content: a file changed after its quote is other bytes, so the token is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { startHarness, structured, text } from '../helpers/harness.js';
import { png, sha256 } from './media-bytes.js';
import { startS3, type TestS3 } from './s3-server.js';

let s3: TestS3;
let sim: Simulator;
let declared: string;
let operator: string;
let files: Config['files'];

beforeAll(async () => {
  s3 = await startS3();
  sim = await startSimulator({ timing: 'test', fetchMedia: true });
  declared = mkdtempSync(join(tmpdir(), 'genplat-root-'));
  operator = mkdtempSync(join(tmpdir(), 'genplat-opdir-'));
  files = {
    inputDirs: [operator],
    staging: {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      prefix: 'p/',
      pathStyle: true,
      // Long enough for the simulator's fetch on a loaded machine (1 s once expired first: a 403 in CI).
      ttlSeconds: 5,
    },
  };
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await s3?.close();
  rmSync(declared, { recursive: true, force: true });
  rmSync(operator, { recursive: true, force: true });
});

describe('MCP roots', () => {
  it('a client that declares roots gets its roots, not GENPLAT_INPUT_DIRS', async () => {
    const h = await startHarness({ sim, era: 'legacy', clientCapabilities: { roots: {} }, config: { files } });
    try {
      h.client.setRequestHandler('roots/list', () => ({ roots: [{ uri: pathToFileURL(declared).href }] }));
      writeFileSync(join(declared, 'in-root.png'), png());
      writeFileSync(join(operator, 'in-opdir.png'), png());
      const outside = await h.call('animate_gesture', { prompt: 'waves', image_url: join(operator, 'in-opdir.png') });
      expect(outside.isError).toBe(true);
      expect(text(outside)).toMatch(/image_url.*outside the allowed folders/);

      const bytes = png(10_000);
      writeFileSync(join(declared, 'face.png'), bytes);
      const ok = await h.call('animate_gesture', { prompt: 'waves', image_url: 'face.png' });
      expect(ok.isError, text(ok)).toBeFalsy();
      expect(sim.fetched.entries().some((f) => f.sha256 === sha256(bytes))).toBe(true);
    } finally {
      await h.close();
    }
  });
});

describe('consent binds the file content', () => {
  it('a file changed after the quote: quoted again, nothing sent or staged', async () => {
    const h = await startHarness({ sim, config: { files, confirm: { mode: 'always' } } });
    try {
      // The previous test's staged copy lives its 5 s lifetime first.
      for (let i = 0; i < 60 && (await s3.keys()).length > 0; i++) await new Promise((r) => setTimeout(r, 250));
      expect(await s3.keys()).toEqual([]);
      const path = join(operator, 'product.png');
      writeFileSync(path, png(5000));
      const quoted = structured(await h.call('animate_gesture', { prompt: 'waves', image_url: path }));
      expect(quoted.status).toBe('confirmation_required');
      const before = sim.log.count({ method: 'POST' });
      writeFileSync(path, png(5000));
      const r = structured(
        await h.call('animate_gesture', {
          prompt: 'waves',
          image_url: path,
          confirmation_token: quoted.confirmation_token,
        }),
      );
      expect(r.status).toBe('confirmation_required');
      expect(String(r.reason)).toMatch(/arguments changed/);
      expect(sim.log.count({ method: 'POST' })).toBe(before);
      expect(await s3.keys()).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
