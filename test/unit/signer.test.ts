/** The one signer (src/signer.ts): purposes are separated, binds are enforced, any change of a byte is refused. */
import { describe, expect, it } from 'vitest';
import { open, purposeKey, sign } from '../../src/signer.js';

const ROOT = Buffer.alloc(32, 9);

describe('signer', () => {
  it('opens what it signed, for the same purpose and bind only', () => {
    const s = sign(ROOT, 'task-id', 'gt1.abc', { bind: 'alice', macBytes: 16 });
    expect(open(ROOT, 'task-id', s, { bind: 'alice', macBytes: 16 })).toBe('gt1.abc');
    expect(open(ROOT, 'task-id', s, { bind: 'bob', macBytes: 16 })).toBeUndefined();
    expect(open(ROOT, 'webhook-path', s, { bind: 'alice', macBytes: 16 })).toBeUndefined();
    expect(open(Buffer.alloc(32, 8), 'task-id', s, { bind: 'alice', macBytes: 16 })).toBeUndefined();
  });

  it('refuses a changed payload, a changed MAC character, a missing MAC and a padded MAC', () => {
    const s = sign(ROOT, 'confirmation-token', 'payload');
    const [payload, macPart] = [s.slice(0, s.lastIndexOf('.')), s.slice(s.lastIndexOf('.') + 1)];
    expect(open(ROOT, 'confirmation-token', `${payload}x.${macPart}`)).toBeUndefined();
    const flipped = macPart[0] === 'A' ? `B${macPart.slice(1)}` : `A${macPart.slice(1)}`;
    expect(open(ROOT, 'confirmation-token', `${payload}.${flipped}`)).toBeUndefined();
    expect(open(ROOT, 'confirmation-token', payload)).toBeUndefined();
    expect(open(ROOT, 'confirmation-token', `${s}=`)).toBeUndefined();
    expect(open(ROOT, 'confirmation-token', s)).toBe('payload');
  });

  it('derives one key per purpose, none equal to the root', () => {
    const purposes = [
      'confirmation-token',
      'request-state',
      'task-id',
      'webhook-path',
      'staged-file',
      'upload-link',
      'account-id',
      'app-view',
      'approval-link',
    ] as const;
    const keys = purposes.map((p) => purposeKey(ROOT, p).toString('hex'));
    expect(new Set([...keys, ROOT.toString('hex')]).size).toBe(purposes.length + 1);
  });

  it('a staged-file URL never opens as an upload link, nor the reverse', () => {
    const staged = sign(ROOT, 'staged-file', 'abc', { macBytes: 16 });
    expect(open(ROOT, 'staged-file', staged, { macBytes: 16 })).toBe('abc');
    expect(open(ROOT, 'upload-link', staged, { macBytes: 16 })).toBeUndefined();
    expect(
      open(ROOT, 'staged-file', sign(ROOT, 'upload-link', 'abc', { macBytes: 16 }), { macBytes: 16 }),
    ).toBeUndefined();
  });

  it('a bind cannot be moved into the payload (length-prefixed)', () => {
    const s = sign(ROOT, 'task-id', 'x', { bind: 'a' });
    expect(open(ROOT, 'task-id', s.replace(/^x/, '1:a\nx'), { bind: '' })).toBeUndefined();
  });

  it('refuses unpaired surrogates, which UTF-8 would fold into one MAC (issue 19 review)', () => {
    expect(() => sign(ROOT, 'webhook-path', 'a\uD800')).toThrow(RangeError);
    const s = sign(ROOT, 'task-id', 'x', { bind: 'owner\uFFFD' });
    expect(open(ROOT, 'task-id', s, { bind: 'owner\uD800' })).toBeUndefined();
    expect(open(ROOT, 'task-id', s, { bind: 'owner\uFFFD' })).toBe('x');
  });
});
