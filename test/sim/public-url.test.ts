import { describe, expect, it } from 'vitest';
import { audioDurationS, isAccessible, isPublicUrl } from '../../src/sim/public-url.js';

const SELF = 'http://127.0.0.1:4567';

describe('public media URL rule', () => {
  it.each([
    'https://cdn.example.com/a.png',
    'http://cdn.example.com/a.png',
    'https://8.8.8.8/a.png',
    'https://[2606:4700::1111]/a.png',
    `${SELF}/media/x.png`,
  ])('accepts %s', (u) => expect(isPublicUrl(u, SELF)).toBe(true));

  it.each([
    'http://127.0.0.1:9999/a.png',
    'http://localhost/a.png',
    'http://app.localhost/a.png',
    'http://10.1.1.1/a.png',
    'http://172.16.5.4/a.png',
    'http://192.168.0.1/a.png',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/a.png',
    'http://0.0.0.0/a.png',
    'http://[::1]/a.png',
    'http://[fd00::1]/a.png',
    'http://[::ffff:10.0.0.1]/a.png',
    'http://2130706433/a.png',
    'http://metadata.google.internal/x',
    'http://intranet/a.png',
    'https://u:p@cdn.example.com/a.png',
    'ftp://cdn.example.com/a.png',
    'file:///etc/passwd',
    'data:image/png;base64,AAAA',
    'not a url',
    '',
    // Spellings a lenient (WHATWG) parser reads as a private host: the platform must not fetch them.
    'http:/169.254.169.254/latest/meta-data/',
    'http:\\\\10.0.0.5\\a',
    'http:10.0.0.1/a.png',
    '   http://10.0.0.1/a.png',
    '\nhttp://127.0.0.1/a.png',
    'ht\ttp://10.0.0.1/a.png',
    'HTTP:2130706433/a.png',
    'https:/[::ffff:a9fe:a9fe]/latest',
    'http://[::127.0.0.1]/a.png',
    'http://[::7f00:1]/a.png',
    'http://[64:ff9b::a00:1]/a.png',
    'http://[fe80::1]/a.png',
    'blob:http://10.0.0.1/3f2a',
  ])('rejects %j', (u) => expect(isPublicUrl(u, SELF)).toBe(false));

  it('accepts base64 data URIs only when allowed', () => {
    expect(isPublicUrl('data:image/png;base64,AAAA', SELF, { allowDataUri: true })).toBe(true);
    expect(isPublicUrl('data:text/html,<b>x</b>', SELF, { allowDataUri: true })).toBe(false);
  });

  it('treats .invalid hosts and "unreachable" URLs as inaccessible', () => {
    expect(isAccessible('https://cdn.example.com/a.mp3')).toBe(true);
    expect(isAccessible('https://a.invalid/a.mp3')).toBe(false);
    expect(isAccessible('https://cdn.example.com/unreachable/a.mp3')).toBe(false);
  });

  it('reads audio length from ?duration=, else 20 s', () => {
    expect(audioDurationS('https://cdn.example.com/a.mp3?duration=95.5')).toBe(95.5);
    expect(audioDurationS('https://cdn.example.com/a.mp3')).toBe(20);
    expect(audioDurationS('https://cdn.example.com/a.mp3?duration=abc')).toBe(20);
  });
});
