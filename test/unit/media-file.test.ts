import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserInputError } from '../../src/errors.js';
import {
  checkMediaFile,
  describeMedia,
  isLocalMedia,
  MAX_MEDIA_FILE_BYTES,
  mediaPart,
  mediaSource,
} from '../../tools/_shared/media-file.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const riff = (tag: string) => [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from(tag)];
const padded = (head: number[]) => Buffer.concat([Buffer.from(head), Buffer.alloc(64, 7)]);

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'genplat-media-'));
  await writeFile(file('face.png'), padded(PNG));
  await writeFile(file('face.jpg'), padded(JPEG));
  await writeFile(file('face.webp'), padded(riff('WEBP')));
  // A JPEG named .png: the bytes decide the content type.
  await writeFile(file('mislabelled.png'), padded(JPEG));
  await writeFile(file('notes.png'), 'just some text, not an image');
  await writeFile(file('face.gif'), padded([...Buffer.from('GIF89a')]));
  await writeFile(file('empty.png'), '');
  await writeFile(file('voice.mp3'), padded([...Buffer.from('ID3'), 4, 0]));
  await writeFile(file('frames.mp3'), padded([0xff, 0xfb, 0x90, 0x44]));
  await writeFile(file('adts.mp3'), padded([0xff, 0xf1, 0x50, 0x80]));
  await writeFile(file('voice.wav'), padded(riff('WAVE')));
  await writeFile(file('voice.m4a'), padded([0, 0, 0, 0x20, ...Buffer.from('ftypM4A ')]));
  await writeFile(file('voice.ogg'), padded([...Buffer.from('OggS'), 0]));
  await writeFile(file('big.png'), padded(PNG));
  // Sparse: no 10 MiB of real data is written.
  await truncate(file('big.png'), MAX_MEDIA_FILE_BYTES + 1);
  await writeFile(file('limit.png'), padded(PNG));
  await truncate(file('limit.png'), MAX_MEDIA_FILE_BYTES);
  await mkdir(file('folder.png'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function rule(field: 'image' | 'voice', name: string): Promise<UserInputError> {
  const err = await checkMediaFile(field, file(name), [dir]).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UserInputError);
  expect((err as UserInputError).field).toBe(field);
  return err as UserInputError;
}

describe('checkMediaFile', () => {
  it.each([
    ['image', 'face.png', 'image/png'],
    ['image', 'face.jpg', 'image/jpeg'],
    ['image', 'face.webp', 'image/webp'],
    ['image', 'mislabelled.png', 'image/jpeg'],
    ['image', 'limit.png', 'image/png'],
    ['voice', 'voice.mp3', 'audio/mpeg'],
    ['voice', 'frames.mp3', 'audio/mpeg'],
    ['voice', 'voice.wav', 'audio/wav'],
    ['voice', 'voice.m4a', 'audio/mp4'],
    ['voice', 'voice.ogg', 'audio/ogg'],
  ] as const)('accepts %s %s as %s', async (field, name, type) => {
    const f = await checkMediaFile(field, file(name), [dir]);
    expect(f).toMatchObject({ filename: name, contentType: type });
  });

  it('refuses a file over 10 MiB by its size alone', async () => {
    expect((await rule('image', 'big.png')).rule).toMatch(/at most 10 MiB/);
  });
  it('refuses content that is not an image, naming the field', async () => {
    expect((await rule('image', 'notes.png')).rule).toMatch(/content is not png, jpeg, webp/);
  });
  it('refuses an image as a voice sample', async () => {
    await writeFile(file('image.mp3'), padded(PNG));
    expect((await rule('voice', 'image.mp3')).rule).toMatch(/content is not mpeg/);
  });
  it('refuses AAC frames named .mp3', async () => {
    expect((await rule('voice', 'adts.mp3')).rule).toMatch(/content/);
  });
  it('refuses an extension outside the list', async () => {
    expect((await rule('image', 'face.gif')).rule).toMatch(/must end in \.png, \.jpg, \.jpeg, \.webp/);
  });
  it('refuses a missing file, an empty file and a directory', async () => {
    expect((await rule('image', 'nope.png')).rule).toMatch(/does not exist/);
    expect((await rule('image', 'empty.png')).rule).toMatch(/is empty/);
    expect((await rule('image', 'folder.png')).rule).toMatch(/not a regular file/);
  });
});

describe('mediaPart', () => {
  it('passes a URL through as a string part', async () => {
    expect(await mediaPart('image', 'https://cdn.example.com/a.png', [dir])).toEqual({
      url: 'https://cdn.example.com/a.png',
    });
  });
  it('reads a file into a part with its detected type', async () => {
    const part = await mediaPart('voice', file('voice.wav'), [dir]);
    expect(part).toMatchObject({ filename: 'voice.wav', contentType: 'audio/wav' });
    expect('bytes' in part && part.bytes.byteLength).toBe(76);
  });
});

describe('mediaSource (zod)', () => {
  const schema = z.object({ image: mediaSource('x') });
  it.each(['https://cdn.example.com/a.png', '/tmp/a.png'])('accepts %s', (v) => {
    expect(schema.safeParse({ image: v }).success).toBe(true);
  });
  it.each([
    ['relative path', 'face.png', /absolute local file path/],
    ['private URL', 'http://10.0.0.1/a.png', /private|public/i],
    ['data URI', 'data:image/png;base64,AAAA', /absolute local file path/],
    ['file URL', 'file:///etc/passwd', /absolute local file path/],
  ])('refuses a %s', (_n, v, msg) => {
    const r = schema.safeParse({ image: v });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(msg);
  });
  it('tells paths from URLs by prefix and describes both briefly', () => {
    expect(isLocalMedia('/a/b.png')).toBe(true);
    expect(isLocalMedia('HTTPS://cdn.example.com/b.png')).toBe(false);
    expect(describeMedia('/home/me/secret/face.png')).toBe('file face.png');
    expect(describeMedia('https://cdn.example.com/x/y/face.png?sig=1')).toBe('cdn.example.com/…/face.png');
  });
});
