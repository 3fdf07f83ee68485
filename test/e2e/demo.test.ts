/**
 * `npm run demo` end to end: the built demo drives the built server (--sandbox) over stdio like an agent.
 * It must exit 0 and its transcript must show each job completed with a URL, and the spend it confirmed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, ensureBuilt, ROOT } from '../helpers/build.js';

let stdout = '';
let stderr = '';

beforeAll(async () => {
  ensureBuilt();
  // execFile rejects on a non-zero exit (or the time limit), which fails every test below with its output.
  const r = await promisify(execFile)(process.execPath, [DEMO], { cwd: ROOT, timeout: 110_000 }).catch(
    (err: { code?: unknown; stdout?: string; stderr?: string }) => {
      throw new Error(`demo exited with ${String(err.code)}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    },
  );
  stdout = r.stdout;
  stderr = r.stderr;
}, 120_000);

/** The URL on the transcript line matching `re` (group 1). */
function urlOf(re: RegExp): string {
  const m = re.exec(stdout);
  expect(m, `no line matching ${re} in:\n${stdout}\n${stderr}`).not.toBeNull();
  return m![1]!;
}

describe('npm run demo', () => {
  it('completes the talking video with a video URL', () => {
    const url = urlOf(/^server ← completed: video (http\S+\.mp4)$/m);
    expect(new URL(url).pathname).toMatch(/^\/media\//);
  });

  it('completes the run_model image job with an image URL, after quoting and confirming it', () => {
    expect(stdout).toMatch(/^agent {2}→ run_model\(same arguments \+ confirmation_token\)$/m);
    urlOf(/^server ← completed \(run_model image\): image (http\S+\.png)$/m);
  });

  it('completes the template video with a video URL, after quoting and confirming it', () => {
    expect(stdout).toMatch(/^agent {2}→ create_template_video\(same arguments \+ confirmation_token\)$/m);
    urlOf(/^server ← completed \(template video\): video (http\S+\.mp4)$/m);
  });

  it('waits for the two new jobs in one wait_for_jobs call', () => {
    expect(stdout).toMatch(/^agent {2}→ wait_for_jobs\(\["model:image:[^"]+","template_video:[^"]+"\]\)$/m);
  });

  it('lists three completed jobs and reports as spent exactly the credits it confirmed', () => {
    const listed = stdout.match(/^list_jobs: \S+ {2}completed {2}/gm) ?? [];
    expect(listed).toHaveLength(3);
    const quoted = [...stdout.matchAll(/^server ← confirmation_required: (\d+) credits/gm)].map((m) => Number(m[1]));
    expect(quoted).toHaveLength(3);
    const total = quoted.reduce((a, b) => a + b, 0);
    expect(stdout).toMatch(new RegExp(`^genplat://spend: ${total} credits today of \\d+ per day`, 'm'));
  });

  it('ends with the done line, and the server logged no error', () => {
    expect(stdout).toMatch(/^done in \d+\.\d s$/m);
    expect(stderr).not.toContain('[genplat-mcp] error');
  });
});
