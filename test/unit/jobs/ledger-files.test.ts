import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneNonces } from '../../../src/jobs/ledger-files.js';
import { type TestDir, testDir } from './ledger-helpers.js';

let t: TestDir;
beforeEach(async () => {
  t = await testDir();
});
afterEach(async () => {
  await t.cleanup();
});

const posix = process.platform !== 'win32';
const inAMinute = () => new Date(Date.now() + 60_000);

describe('nonces', () => {
  it('are single use across two ledger instances on the same dir', async () => {
    const a = await t.open();
    const b = await t.open();
    expect(await a.consumeNonce('n-1', inAMinute())).toBe(true);
    expect(await b.consumeNonce('n-1', inAMinute())).toBe(false);
    expect(await a.consumeNonce('n-1', inAMinute())).toBe(false);
    expect(await b.consumeNonce('n-2', inAMinute())).toBe(true);
  });

  it('let exactly one of many racing consumers win', async () => {
    const a = await t.open();
    const b = await t.open();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consumeNonce('contested', inAMinute())),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('are stored hashed, and expired ones are pruned at open', async () => {
    const a = await t.open();
    await a.consumeNonce('token-nonce-secret', new Date(Date.now() - 1000));
    await a.consumeNonce('still-valid', inAMinute());
    const dir = join(t.dir, 'nonces');
    const names = await readdir(dir);
    expect(names).toHaveLength(2);
    expect(names.every((n) => /^[0-9a-f]{64}$/.test(n))).toBe(true);
    await a.close();

    const b = await t.open();
    expect(await readdir(dir)).toHaveLength(1);
    expect(await b.consumeNonce('still-valid', inAMinute())).toBe(false);
  });

  it('pruning leaves foreign and unreadable entries alone', async () => {
    await t.open();
    const dir = join(t.dir, 'nonces');
    await writeFile(join(dir, 'README'), 'not a nonce');
    await writeFile(join(dir, 'a'.repeat(64)), ''); // being created right now
    expect(await pruneNonces(dir)).toBe(0);
    expect(await readdir(dir)).toHaveLength(2);
  });
});

describe('secret', () => {
  it('is 32 bytes, stable across instances, and survives reopen', async () => {
    const a = await t.open();
    const s1 = await a.secret();
    expect(s1).toHaveLength(32);
    expect(await a.secret()).toEqual(s1);
    await a.close();
    const b = await t.open();
    expect(await b.secret()).toEqual(s1);
    expect(await readFile(join(t.dir, 'secret'))).toEqual(s1);
  });

  it('is the same for two instances created together', async () => {
    const [a, b] = await Promise.all([t.open(), t.open()]);
    const [s1, s2] = await Promise.all([a.secret(), b.secret()]);
    expect(s1).toEqual(s2);
    // No temp files left behind by the loser of the race.
    expect((await readdir(t.dir)).filter((n) => n.startsWith('secret'))).toEqual(['secret']);
  });

  it.runIf(posix)('is mode 0600 in a 0700 state dir', async () => {
    const a = await t.open();
    await a.secret();
    expect((await stat(join(t.dir, 'secret'))).mode & 0o777).toBe(0o600);
    expect((await stat(t.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(t.dir, 'ledger.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged secret file instead of using a weak key', async () => {
    const a = await t.open();
    await writeFile(join(t.dir, 'secret'), 'short');
    await expect(a.secret()).rejects.toThrow(/holds 5 bytes instead of 32/);
  });
});
