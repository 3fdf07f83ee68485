import { describe, expect, it } from 'vitest';
import { sniffMedia } from '../../../src/client/media-sniff.js';
import { buildMp3, buildMp4, buildPng } from '../../../src/sim/media.js';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffMedia: the file type its own bytes prove', () => {
  it.each([
    ['sandbox PNG', buildPng(), 'image/png', 'png'],
    ['sandbox MP4', buildMp4(), 'video/mp4', 'mp4'],
    ['sandbox MP3 (ID3)', buildMp3(), 'audio/mpeg', 'mp3'],
    ['JPEG', b([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg', 'jpg'],
    ['GIF', b('GIF89a', [1, 0]), 'image/gif', 'gif'],
    ['WebP', b('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp', 'webp'],
    ['WAV', b('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'audio/wav', 'wav'],
    ['QuickTime', b([0, 0, 0, 20], 'ftypqt  '), 'video/quicktime', 'mov'],
    ['M4A', b([0, 0, 0, 20], 'ftypM4A '), 'audio/mp4', 'm4a'],
    ['WebM', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm'), 'video/webm', 'webm'],
    ['Matroska', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska'), 'video/x-matroska', 'mkv'],
    ['MP3 frame', b([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg', 'mp3'],
    ['Ogg', b('OggS', [0, 2]), 'audio/ogg', 'ogg'],
    ['FLAC', b('fLaC', [0]), 'audio/flac', 'flac'],
  ])('%s', (_name, head, type, ext) => {
    expect(sniffMedia(head)).toMatchObject({ type, ext });
  });

  it.each([
    ['a Windows executable', b('MZ', [0x90, 0, 3, 0])],
    ['HTML', b('<!doctype html><html>')],
    ['an SVG (script-capable)', b('<svg xmlns="http://www.w3.org/2000/svg">')],
    ['a ZIP', b('PK', [3, 4])],
    ['a PDF', b('%PDF-1.7')],
    ['AAC ADTS (not MP3 layer III)', b([0xff, 0xf1, 0x50, 0x80])],
    ['nothing', b()],
    ['a truncated PNG signature', b([0x89, 0x50, 0x4e])],
  ])('refuses %s', (_name, head) => {
    expect(sniffMedia(head)).toBeUndefined();
  });
});
