/**
 * The one place that decides which browser the browser tests (test/apps/*.browser.test.ts) drive through
 * playwright-core: a system Chromium or Chrome, never a browser Playwright downloads (its download hosts are
 * outside the npm registry, which is all a developer machine or CI is sure to reach). When there is none the
 * tests fail, saying how to get one; they never skip, so a green run always includes them.
 */
import { accessSync, constants } from 'node:fs';

/** Where Debian/Ubuntu packages and the Chrome installers put the browser, in the order tried. */
export const CHROME_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser's path: `GENPLAT_TEST_CHROME`, else `CHROME_PATH`, else the first executable candidate. A variable
 * that names no executable is an error, not a reason to look elsewhere: the caller meant that browser.
 */
export function findChromium(
  env: Record<string, string | undefined> = process.env,
  candidates: readonly string[] = CHROME_CANDIDATES,
): string {
  for (const name of ['GENPLAT_TEST_CHROME', 'CHROME_PATH'] as const) {
    const set = env[name];
    if (!set) continue;
    if (executable(set)) return set;
    throw new Error(`${name}=${set} is not an executable file. Point it at a Chromium or Chrome binary, or unset it.`);
  }
  const found = candidates.find(executable);
  if (found) return found;
  throw new Error(
    'The browser tests need a Chromium or Chrome and found none (GENPLAT_TEST_CHROME, CHROME_PATH, ' +
      `${candidates.join(', ')}). Install one: Debian/Ubuntu \`sudo apt install chromium\`, macOS Google Chrome; ` +
      'or set GENPLAT_TEST_CHROME=/path/to/chrome. (Playwright never downloads one here.)',
  );
}
