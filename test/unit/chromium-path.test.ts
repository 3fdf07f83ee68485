/** test/helpers/chromium.ts: which browser the browser tests drive, and the message when there is none. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium.js';

const dir = mkdtempSync(join(tmpdir(), 'chromium-path-'));
const exe = join(dir, 'chrome');
writeFileSync(exe, '#!/bin/sh\n');
chmodSync(exe, 0o755);
const notExe = join(dir, 'not-exe');
writeFileSync(notExe, '');
const missing = join(dir, 'missing');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findChromium', () => {
  it('takes GENPLAT_TEST_CHROME, then CHROME_PATH, then the first executable candidate', () => {
    expect(findChromium({ GENPLAT_TEST_CHROME: exe, CHROME_PATH: missing }, [missing])).toBe(exe);
    expect(findChromium({ CHROME_PATH: exe }, [missing])).toBe(exe);
    expect(findChromium({}, [missing, notExe, exe])).toBe(exe);
  });

  it('refuses a variable naming no executable instead of looking elsewhere', () => {
    expect(() => findChromium({ GENPLAT_TEST_CHROME: notExe }, [exe])).toThrow(
      `GENPLAT_TEST_CHROME=${notExe} is not an executable file`,
    );
    expect(() => findChromium({ CHROME_PATH: missing }, [exe])).toThrow(`CHROME_PATH=${missing}`);
  });

  it('with none, fails saying where it looked and how to get one', () => {
    let message = '';
    try {
      findChromium({}, [missing, notExe]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`${missing}, ${notExe}`);
    expect(message).toContain('sudo apt install chromium');
    expect(message).toContain('GENPLAT_TEST_CHROME=/path/to/chrome');
  });
});
