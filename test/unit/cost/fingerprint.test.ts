import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from '../../../src/cost/fingerprint.js';

describe('fingerprint', () => {
  const args = { avatar_id: 'av_ava', voice_script: 'Hello', voice_settings: { speed: 1, stability: 0.5 } };

  it('ignores key order, surrounding spaces, undefined members and the guard arguments', () => {
    const fp = fingerprint('t', args);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(
      fingerprint('t', {
        voice_settings: { stability: 0.5, speed: 1 },
        voice_script: '  Hello\n',
        avatar_id: 'av_ava',
        video_name: undefined,
        confirmation_token: 'abc',
        allow_duplicate: true,
      }),
    ).toBe(fp);
  });

  it('changes with the tool, any value, and array order', () => {
    const fp = fingerprint('t', args);
    expect(fingerprint('u', args)).not.toBe(fp);
    expect(fingerprint('t', { ...args, voice_script: 'Hello!' })).not.toBe(fp);
    expect(fingerprint('t', { ...args, voice_settings: { speed: 1.1, stability: 0.5 } })).not.toBe(fp);
    expect(fingerprint('t', { ...args, extra: null })).not.toBe(fp);
    expect(fingerprint('t', { urls: ['a', 'b'] })).not.toBe(fingerprint('t', { urls: ['b', 'a'] }));
    const proto = JSON.parse('{"fields":{"__proto__":{"x":1}}}');
    expect(fingerprint('t', proto)).not.toBe(fingerprint('t', { fields: {} }));
    // A number and its string form are different jobs to a strict API.
    expect(fingerprint('t', { n: 1 })).not.toBe(fingerprint('t', { n: '1' }));
  });

  it('canonical JSON is stable under key permutation (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
      }),
    );
  });
});
