/** The one parser of a media field's value, and the media kind of a platform body field (src/files/media-ref.ts). */
import { describe, expect, it } from 'vitest';
import { localRefFormProblem, mediaKindOfField, parseMediaRef } from '../../src/files/media-ref.js';

describe('parseMediaRef', () => {
  it.each([
    ['https://cdn.example.com/a.png', 'url'],
    ['   http://10.0.0.1/a.png', 'url'],
    ['http:/169.254.169.254/x', 'url'],
    ['data:image/png;base64,AAAA', 'url'],
    // Other schemes are URLs too, so the public-URL guard refuses them by its own rule.
    ['ftp://host/a.png', 'url'],
    ['javascript:alert(1)', 'url'],
    ['upload:abcdefgh1234', 'upload'],
    ['/home/me/a.png', 'path'],
    ['pictures/a.png', 'path'],
    ['C:\\Users\\me\\a.png', 'path'],
  ])('%s is a %s', (value, type) => {
    expect(parseMediaRef(value).type).toBe(type);
  });

  it.each([
    ['../etc/passwd', /must not contain "\.\."/],
    ['a/../../b.png', /must not contain "\.\."/],
    ['notes:draft.png', /public http\(s\) URL, a local file path or upload/],
    ['upload:short', /upload reference must be/],
    ['a\0b.png', /NUL/],
  ])('%s is refused by its form', (value, rule) => {
    expect(localRefFormProblem(parseMediaRef(value))).toMatch(rule);
  });

  it('an ordinary path has no form problem', () => {
    expect(localRefFormProblem(parseMediaRef('/srv/in/..foo.png'))).toBeUndefined();
  });
});

describe('mediaKindOfField', () => {
  it.each([
    ['image_url', 'image'],
    ['image_urls', 'image'],
    ['end_image_url', 'image'],
    ['reference_image_urls', 'image'],
    ['mask_url', 'image'],
    ['product_image', 'image'],
    ['voice_url', 'audio'],
    ['audio_url', 'audio'],
    ['video_url', 'video'],
    ['webhook_url', undefined],
    ['voice_script', undefined],
    ['prompt', undefined],
  ])('%s → %s', (key, kind) => {
    expect(mediaKindOfField(key)).toBe(kind);
  });
});
