import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyTooDeepError, canonicalJson, fingerprint, MAX_BODY_DEPTH } from '../../../src/paid/fingerprint.js';

const R = '/video/generate';

describe('fingerprint (over the exact request)', () => {
  const body = { avatar_id: 'av_ava', voice_script: 'Hello', voice_settings: { speed: 1, stability: 0.5 } };
  const req = (b: unknown, route = R) => ({ route, body: b });

  it('ignores key order and undefined members only', () => {
    const fp = fingerprint('t', req(body));
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(
      fingerprint(
        't',
        req({
          voice_settings: { stability: 0.5, speed: 1 },
          voice_script: 'Hello',
          avatar_id: 'av_ava',
          video_name: undefined,
        }),
      ),
    ).toBe(fp);
  });

  it('changes with the tool, the route, any value (spaces included), and array order', () => {
    const fp = fingerprint('t', req(body));
    expect(fingerprint('u', req(body))).not.toBe(fp);
    expect(fingerprint('t', req(body, '/product-in-hand/x-human/generate'))).not.toBe(fp);
    // The body is sent as it is, so a padded string is another request.
    expect(fingerprint('t', req({ ...body, voice_script: 'Hello ' }))).not.toBe(fp);
    expect(fingerprint('t', req({ ...body, voice_script: 'Hello!' }))).not.toBe(fp);
    expect(fingerprint('t', req({ ...body, voice_settings: { speed: 1.1, stability: 0.5 } }))).not.toBe(fp);
    expect(fingerprint('t', req({ ...body, extra: null }))).not.toBe(fp);
    expect(fingerprint('t', req({ urls: ['a', 'b'] }))).not.toBe(fingerprint('t', req({ urls: ['b', 'a'] })));
    const proto = JSON.parse('{"fields":{"__proto__":{"x":1}}}');
    expect(fingerprint('t', req(proto))).not.toBe(fingerprint('t', req({ fields: {} })));
    // A number and its string form are different jobs to a strict API.
    expect(fingerprint('t', req({ n: 1 }))).not.toBe(fingerprint('t', req({ n: '1' })));
  });

  it('file bytes count by their digest: other bytes, another request', () => {
    const file = (bytes: number[]) => ({
      image: { filename: 'a.png', contentType: 'image/png', bytes: new Uint8Array(bytes) },
    });
    expect(canonicalJson(file([1, 2, 3]))).toContain('"size":3');
    expect(canonicalJson(file([1, 2, 3]))).toMatch(/"sha256":"[0-9a-f]{64}"/);
    expect(fingerprint('t', req(file([1, 2, 3])))).toBe(fingerprint('t', req(file([1, 2, 3]))));
    expect(fingerprint('t', req(file([1, 2, 4])))).not.toBe(fingerprint('t', req(file([1, 2, 3]))));
  });

  it('canonical JSON of a plain JSON body parses back to the body (strings untouched)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), (obj) => {
        expect(JSON.parse(canonicalJson(obj))).toEqual(JSON.parse(JSON.stringify(obj)));
      }),
    );
  });

  it('canonical JSON is stable under key permutation (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
      }),
    );
  });

  it('refuses a body nested past the limit, naming where, instead of overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    expect(() => canonicalJson({ params: deep })).toThrow(BodyTooDeepError);
    try {
      canonicalJson({ params: deep });
    } catch (err) {
      expect((err as BodyTooDeepError).path).toMatch(/^params(\.a)+$/);
    }
    let ok: unknown = 'x';
    for (let i = 0; i < MAX_BODY_DEPTH - 1; i++) ok = [ok];
    expect(() => canonicalJson(ok)).not.toThrow();
  });
});
