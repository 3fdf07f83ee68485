import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserInputError } from '../../../src/errors.js';
import {
  checkPublicMediaUrl,
  checkWebhookUrl,
  MAX_URL_LENGTH,
  PUBLIC_URL_RULE,
  setTrustedMediaOrigins,
} from '../../../src/guards/url.js';
import { isUrlShaped } from '../../../src/guards/url-shaped.js';
import { publicMediaUrl, webhookUrlField } from '../../../tools/_shared/urls.js';

function rejection(fn: () => void): UserInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserInputError);
    return err as UserInputError;
  }
  throw new Error('expected a UserInputError, nothing was thrown');
}

/** [input, what the rule must mention] */
const HOSTILE: [string, RegExp][] = [
  // loopback
  ['http://127.0.0.1/a.png', /loopback/],
  ['http://127.255.255.254/', /loopback/],
  ['http://[::1]/a.png', /loopback/],
  // RFC 1918
  ['http://10.0.0.1/a.png', /private/],
  ['https://172.16.0.1/', /private/],
  ['https://172.31.255.255/', /private/],
  ['https://192.168.1.10:8080/x', /private/],
  // link-local and metadata
  ['http://169.254.169.254/latest/meta-data/', /link-local/],
  ['http://169.254.0.1/', /link-local/],
  ['http://[fe80::1]/', /link-local/],
  ['http://metadata.google.internal/computeMetadata/v1/', /metadata/],
  ['http://metadata/computeMetadata/v1/', /single-label/],
  // CGNAT, unspecified, broadcast, multicast, reserved
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://100.127.255.254/', /carrier-grade NAT/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://0.1.2.3/', /unspecified/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://224.0.0.1/', /multicast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://192.0.2.1/', /reserved/],
  // IPv6 private, mapped and translated forms
  ['http://[fc00::1]/', /unique-local/],
  ['http://[fd12:3456:789a::1]/', /unique-local/],
  ['http://[::ffff:127.0.0.1]/', /IPv4-mapped/],
  ['http://[::ffff:10.0.0.1]/', /IPv4-mapped/],
  ['http://[::ffff:7f00:1]/', /IPv4-mapped/],
  ['http://[::127.0.0.1]/', /not a global IPv6/],
  ['http://[::]/', /unspecified/],
  ['http://[ff02::1]/', /multicast/],
  ['http://[64:ff9b::a00:1]/', /rfc6052/],
  ['http://[2002:a00:1::]/', /6to4/],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /teredo/],
  ['http://[2001:db8::1]/', /reserved/],
  ['http://[fe80::1%25eth0]/', /written plainly/],
  // alternative IPv4 spellings, normalised by WHATWG URL then refused
  ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f.1/', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f000001/', /127\.0\.0\.1 is a loopback/],
  ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback/],
  ['http://127.1/', /127\.0\.0\.1 is a loopback/],
  ['http://167772161/', /10\.0\.0\.1 is a private/],
  ['http://0xa9.0xfe.0xa9.0xfe/', /169\.254\.169\.254 is a link-local/],
  ['http://192.168.257/', /192\.168\.1\.1 is a private/],
  // names that are private by convention
  ['http://localhost/a.png', /private or special-use/],
  ['http://LOCALHOST:3000/', /private or special-use/],
  ['http://localhost./', /private or special-use/],
  ['http://foo.localhost/', /private or special-use/],
  ['http://printer.local/scan.jpg', /private or special-use/],
  ['https://db.internal/x', /private or special-use/],
  ['https://nas.home.arpa/x', /private or special-use/],
  ['https://1.0.0.10.in-addr.arpa/x', /private or special-use/],
  ['http://intranet/report.png', /private or special-use/],
  ['http://fileserver/report.png', /single-label/],
  ['http://fileserver./report.png', /single-label/],
  // credentials
  ['https://user:pass@example.com/a.png', /user name or password/],
  ['https://user@example.com/a.png', /user name or password/],
  ['https://@example.com/a.png', /user name or password/],
  ['https://example.com@169.254.169.254/', /user name or password/],
  // parser differentials: the platform gets the raw string, so nothing WHATWG would silently fix passes
  ['http:\\\\example.com\\a.png', /absolute/],
  ['https:///example.com/a.png', /written plainly/],
  ['https://\\example.com/a.png', /written plainly/],
  ['http://ex%61mple.com/a.png', /written plainly/],
  ['http://%31%32%37.0.0.1/', /written plainly/],
  ['https://exa\tmple.com/a.png', /control characters/],
  ['http:/169.254.169.254/', /absolute/],
  ['http:10.0.0.1/a.png', /absolute/],
  ['HTTP:2130706433/a.png', /absolute/],
  ['ht\ttp://10.0.0.1/a.png', /control characters/],
  ['https://example.com/a\n.png', /control characters/],
  // schemes
  ['file:///etc/passwd', /file URLs are not accepted/],
  ['data:image/png;base64,AAA=', /data URIs are not accepted/],
  ['javascript:alert(1)', /javascript URLs are not accepted/],
  ['ftp://example.com/a.png', /ftp URLs are not accepted/],
  ['gopher://example.com/', /gopher URLs are not accepted/],
  ['ws://example.com/', /ws URLs are not accepted/],
  ['blob:http://10.0.0.1/3f2a', /blob URLs are not accepted/],
  ['jar:http://10.0.0.1/x.jar!/', /jar URLs are not accepted/],
  // not absolute, empty, padded, too long
  ['/images/a.png', /absolute/],
  ['images/a.png', /absolute/],
  ['//example.com/a.png', /absolute/],
  ['example.com/a.png', /absolute/],
  ['cdn.example.com:443/a.png', /absolute/],
  ['', /empty/],
  [' https://example.com/a.png', /spaces/],
  ['https://example.com/a.png\n', /spaces/],
  ['\u00a0https://example.com/a.png', /spaces/],
  [`https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`, /at most 2048/],
  ['https://exa mple.com/', /absolute/],
];

const PUBLIC = [
  'https://example.com/a.png',
  'http://example.com/a.png',
  'https://cdn.example.com:8443/media/video.mp4?sig=abc&exp=123#t=1',
  'https://storage.googleapis.com/bucket/path%20with%20spaces.mp3',
  'https://s3.amazonaws.com/bucket/key.jpg',
  'http://8.8.8.8/a.png',
  'https://93.184.216.34:443/x',
  'https://172.32.0.1/just-outside-172.16/12',
  'https://100.128.0.1/just-outside-cgnat',
  'http://[2606:4700:4700::1111]/a.png',
  'https://[2a00:1450:4001:80b::200e]:8443/a',
  'https://xn--bcher-kva.example/a.png',
  'https://bücher.example/a.png',
  'https://EXAMPLE.COM/A.PNG',
  'https://example.com./a.png',
  `https://example.com/${'a'.repeat(MAX_URL_LENGTH - 'https://example.com/'.length)}`,
];

afterEach(() => setTrustedMediaOrigins([]));

describe('checkPublicMediaUrl', () => {
  it(`has a table of ${HOSTILE.length} hostile inputs`, () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HOSTILE)('rejects %j', (input, rule) => {
    const err = rejection(() => checkPublicMediaUrl('image_url', input));
    expect(err.field).toBe('image_url');
    expect(err.message.startsWith('image_url: ')).toBe(true);
    expect(err.rule).toMatch(rule);
  });

  it('states the public-URL rule for address and host problems', () => {
    expect(rejection(() => checkPublicMediaUrl('mask_url', 'http://10.1.2.3/')).rule).toContain(PUBLIC_URL_RULE);
  });

  it.each(PUBLIC)('accepts %j', (input) => {
    expect(() => checkPublicMediaUrl('image_url', input)).not.toThrow();
  });

  it('accepts base64 image, video and audio data URIs only where allowed', () => {
    const ok = [
      'data:image/png;base64,iVBORw0KGgo=',
      'data:video/mp4;base64,AAAAIGZ0eXA=',
      'data:audio/mpeg;base64,SUQz',
    ];
    for (const uri of ok) {
      expect(() => checkPublicMediaUrl('image_url', uri, { allowDataUri: true })).not.toThrow();
      expect(rejection(() => checkPublicMediaUrl('image_url', uri)).rule).toMatch(/data URIs are not accepted/);
    }
    const bad = [
      'data:text/html;base64,PGgxPg==',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'data:image/png,rawbytes',
      'data:image/png;base64,not base64!',
      'data:;base64,AAAA',
      'data:application/octet-stream;base64,AAAA',
    ];
    for (const uri of bad) {
      expect(rejection(() => checkPublicMediaUrl('image_url', uri, { allowDataUri: true })).rule).toMatch(
        /data URI must be/,
      );
    }
    // allowDataUri never loosens the http(s) rules.
    expect(() => checkPublicMediaUrl('image_url', 'http://127.0.0.1/', { allowDataUri: true })).toThrow(UserInputError);
  });

  it('accepts URLs on a trusted origin (the sandbox simulator) and nothing else on loopback', () => {
    setTrustedMediaOrigins(['http://127.0.0.1:4321']);
    expect(() => checkPublicMediaUrl('image_url', 'http://127.0.0.1:4321/media/out.mp4')).not.toThrow();
    expect(() => checkPublicMediaUrl('image_url', 'http://127.0.0.1:4322/media/out.mp4')).toThrow(UserInputError);
    expect(() => checkPublicMediaUrl('image_url', 'https://127.0.0.1:4321/media/out.mp4')).toThrow(UserInputError);
    expect(() => checkPublicMediaUrl('image_url', 'http://localhost:4321/media/out.mp4')).toThrow(UserInputError);
    // Credentials are refused even on a trusted origin.
    expect(() => checkPublicMediaUrl('image_url', 'http://u:p@127.0.0.1:4321/x')).toThrow(UserInputError);
    setTrustedMediaOrigins([]);
    expect(() => checkPublicMediaUrl('image_url', 'http://127.0.0.1:4321/media/out.mp4')).toThrow(UserInputError);
  });
});

/**
 * Free-form values (run_model params, template text fields) are guarded when URL-shaped: what a WHATWG parser
 * reads as a fetchable URL after trimming. [value, shaped?]
 */
const SHAPES: [string, boolean][] = [
  // hostile spellings a `^scheme://` prefix test misses
  ['http:/169.254.169.254/', true],
  ['http:\\\\10.0.0.5\\a', true],
  ['http:10.0.0.1', true],
  ['HTTP:2130706433/', true],
  ['   http://10.0.0.1/', true],
  ['\u00a0https://10.0.0.1/', true],
  ['\r\nhttp://10.0.0.1/', true],
  ['ht\ttp://10.0.0.1/', true],
  ['h\nttps://[::ffff:7f00:1]/', true],
  ['https:/[::ffff:a9fe:a9fe]/latest', true],
  ['http://exa mple.com/', true],
  // other fetchable schemes and local paths
  ['file:///etc/passwd', true],
  ['FILE:/etc/passwd', true],
  ['ftp://10.0.0.1/x', true],
  ['ws:10.0.0.1', true],
  ['gopher://10.0.0.1:70/_x', true],
  ['dict://10.0.0.1:11211/stat', true],
  ['C:\\Windows\\win.ini', true],
  ['data:image/png;base64,AAAA', true],
  ['DATA:text/html,<b>x</b>', true],
  ['blob:http://10.0.0.1/3f2a', true],
  ['jar:http://10.0.0.1/x.jar!/', true],
  ['javascript:alert(1)', true],
  ['https://cdn.example.com/a.png', true],
  // prose and values that only look like `word:rest`
  ['Style:anime', false],
  ['Close-up: a woman smiling', false],
  ['Sale: 50% off', false],
  ['see https://example.com for ideas', false],
  ['http: the protocol explained', false],
  ['mailto:press@example.com', false],
  ['16:9', false],
  ['10:30 am', false],
  ['1024x1024', false],
  ['cdn.example.com/a.png', false],
  ['', false],
];

describe('isUrlShaped', () => {
  it.each(SHAPES)('%j → %s', (value, shaped) => {
    expect(isUrlShaped(value)).toBe(shaped);
  });

  it('every shaped value in the table is refused by the guard unless it is a public https URL', () => {
    for (const [value, shaped] of SHAPES) {
      if (!shaped || value === 'https://cdn.example.com/a.png') continue;
      expect(() => checkPublicMediaUrl('params.x', value), value).toThrow(UserInputError);
    }
  });
});

describe('checkWebhookUrl', () => {
  const allow = ['hooks.example.com', 'Callbacks.Example.org.'];

  it('accepts an https URL on an allowed host (exact, case-insensitive, any port and path)', () => {
    expect(() => checkWebhookUrl('webhook_url', 'https://hooks.example.com/genplat?x=1', allow)).not.toThrow();
    expect(() => checkWebhookUrl('webhook_url', 'https://HOOKS.example.com:8443/a', allow)).not.toThrow();
    expect(() => checkWebhookUrl('webhook_url', 'https://callbacks.example.org/a', allow)).not.toThrow();
    expect(() => checkWebhookUrl('webhook_url', 'https://hooks.example.com./a', allow)).not.toThrow();
  });

  it.each([
    ['https://evil.com/hook', /not on the webhook allow-list/],
    ['https://sub.hooks.example.com/hook', /not on the webhook allow-list/],
    ['https://hooks.example.com.evil.com/hook', /not on the webhook allow-list/],
    ['https://evilhooks.example.com/hook', /not on the webhook allow-list/],
    ['https://example.com/hook', /not on the webhook allow-list/],
    ['http://hooks.example.com/hook', /must be an https URL/],
    ['https://user:pw@hooks.example.com/hook', /user name or password/],
    ['https://evil.com@hooks.example.com/hook', /user name or password/],
    ['https://10.0.0.5/hook', /private/],
    ['data:image/png;base64,AAAA', /https/],
    ['hooks.example.com/hook', /absolute/],
  ])('rejects %j', (input, rule) => {
    const err = rejection(() => checkWebhookUrl('webhook_url', input, allow));
    expect(err.field).toBe('webhook_url');
    expect(err.rule).toMatch(rule);
  });

  it('rejects a private host even if the operator listed it', () => {
    expect(() => checkWebhookUrl('webhook_url', 'https://localhost/hook', ['localhost'])).toThrow(/private/);
  });

  it('with an empty allow-list rejects every webhook and names GENPLAT_WEBHOOK_ALLOWLIST', () => {
    const err = rejection(() => checkWebhookUrl('webhook_url', 'https://hooks.example.com/x', []));
    expect(err.field).toBe('webhook_url');
    expect(err.message).toContain('GENPLAT_WEBHOOK_ALLOWLIST');
    expect(err.nextStep).toMatch(/wait_for_jobs/);
  });

  it('does not honour trusted media origins', () => {
    setTrustedMediaOrigins(['https://127.0.0.1:4321']);
    expect(() => checkWebhookUrl('webhook_url', 'https://127.0.0.1:4321/hook', ['127.0.0.1'])).toThrow(/loopback/);
  });
});

describe('zod fields', () => {
  const Input = z.object({
    image_url: publicMediaUrl('Person image'),
    media: publicMediaUrl('Image URL or base64 data URI', { allowDataUri: true }).optional(),
    webhook_url: webhookUrlField(),
  });

  it('report the guard rule as an issue on the field', () => {
    const r = Input.safeParse({ image_url: 'http://169.254.169.254/', webhook_url: 'http://hooks.example.com/' });
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => [i.path.join('.'), i.message]);
    expect(issues).toEqual([
      ['image_url', expect.stringMatching(/link-local/)],
      ['webhook_url', expect.stringMatching(/https/)],
    ]);
  });

  it('accept good values, data URIs only where allowed, and an absent webhook', () => {
    expect(Input.safeParse({ image_url: 'https://cdn.example.com/a.png' }).success).toBe(true);
    expect(
      Input.safeParse({ image_url: 'https://cdn.example.com/a.png', media: 'data:image/png;base64,AAAA' }).success,
    ).toBe(true);
    expect(Input.safeParse({ image_url: 'data:image/png;base64,AAAA' }).success).toBe(false);
  });

  it('keep their descriptions and length bounds in the JSON schema', () => {
    const schema = z.toJSONSchema(Input) as {
      properties: Record<string, { description?: string; maxLength?: number }>;
    };
    expect(schema.properties.image_url).toMatchObject({
      // Every media field says what it takes (issue 29 item 8), in the one shared phrase.
      description: 'Person image: URL, local path or upload reference',
      maxLength: 2048,
    });
    expect(schema.properties.webhook_url?.description).toMatch(/allow-list/);
    expect(schema.properties.media?.maxLength).toBeGreaterThan(2048);
  });
});
