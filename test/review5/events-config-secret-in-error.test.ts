/**
 * Review 5, finding 2: a malformed GENPLAT_EVENTS_ENDPOINTS file is reported with the JSON parser's message, and
 * V8's message quotes the text around the error: a trailing comma after the last endpoint (the commonest edit slip)
 * puts the tail of the `whsec_` secret into the startup error and `genplat-mcp doctor` output. The secret is not
 * registered for redaction yet (startEvents registers it only once the config is valid).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEventsConfig } from '../../src/events/config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every 5-character piece of the secret's key material. */
const pieces = (secret: string) => {
  const key = secret.slice('whsec_'.length).replace(/=+$/, '');
  return Array.from({ length: key.length - 4 }, (_, i) => key.slice(i, i + 5));
};

describe('review5: an endpoints file error never quotes the secret', () => {
  it.each([
    ['a trailing comma after the last endpoint', (s: string) => `[{"url":"https://bot.example/e","secret":"${s}"},]`],
  ])('%s', (_name, text) => {
    const secret = `whsec_${Buffer.from('review5-secret-0123456789abcdef!').toString('base64')}`;
    const dir = mkdtempSync(join(tmpdir(), 'review5-cfg-'));
    dirs.push(dir);
    const file = join(dir, 'endpoints.json');
    writeFileSync(file, text(secret));
    const problems: string[] = [];
    loadEventsConfig({ GENPLAT_EVENTS_ENDPOINTS: file }, (p) => p, problems);
    expect(problems.length).toBeGreaterThan(0);
    const leaked = pieces(secret).filter((p) => problems.join('\n').includes(p));
    expect(leaked).toEqual([]);
  });
});
