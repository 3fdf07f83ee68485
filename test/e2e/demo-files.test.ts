/**
 * `npm run demo:files` end to end (issue 29 item 7): the built demo drives the built server (--sandbox, stdio, no
 * bucket, no public URL) to make a talking video whose voice is a local WAV it writes in a temp folder.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEMO, ensureBuilt, ROOT } from '../helpers/build.js';

describe('npm run demo:files', () => {
  it('a local WAV, no bucket: quoted, confirmed, staged, completed with a video URL', async () => {
    ensureBuilt();
    const r = await promisify(execFile)(process.execPath, [DEMO, 'files'], { cwd: ROOT, timeout: 110_000 }).catch(
      (err: { code?: unknown; stdout?: string; stderr?: string }) => {
        throw new Error(`demo:files exited with ${String(err.code)}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
      },
    );
    expect(r.stdout).toMatch(/^agent {2}→ create_talking_video\(.*"voice_url":"\/[^"]+\/voice\.wav"\}\)$/m);
    expect(r.stdout).toMatch(/^server ← confirmation_required: 100 credits/m);
    expect(r.stdout).toMatch(/^server ← completed: video http\S+\.mp4$/m);
    expect(r.stdout).toMatch(/^list_jobs: actor_video:\S+ {2}completed {2}.*own audio$/m);
  }, 120_000);
});
