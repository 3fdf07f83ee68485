import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildMp3, buildMp4, buildPng, crc32 } from '../../src/sim/media.js';

describe('served media', () => {
  it('CRC-32 matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('the PNG has valid chunk CRCs and inflatable pixel data of the right size', () => {
    const png = buildPng(16);
    let o = 8;
    const types: string[] = [];
    let idat = Buffer.alloc(0);
    while (o < png.length) {
      const len = png.readUInt32BE(o);
      const type = png.toString('ascii', o + 4, o + 8);
      const data = png.subarray(o + 8, o + 8 + len);
      expect(png.readUInt32BE(o + 8 + len)).toBe(crc32(png.subarray(o + 4, o + 8 + len)));
      if (type === 'IDAT') idat = Buffer.concat([idat, data]);
      types.push(type);
      o += 12 + len;
    }
    expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(inflateSync(idat).length).toBe(16 * (1 + 16 * 3));
  });

  it('the MP4 is a sequence of well-sized boxes: ftyp, moov (mvhd, a track) before mdat', () => {
    const mp4 = buildMp4();
    const boxes: string[] = [];
    let o = 0;
    while (o < mp4.length) {
      const size = mp4.readUInt32BE(o);
      expect(size).toBeGreaterThanOrEqual(8);
      boxes.push(mp4.toString('ascii', o + 4, o + 8));
      if (boxes.at(-1) === 'moov') {
        expect(mp4.toString('ascii', o + 12, o + 16)).toBe('mvhd');
      }
      o += size;
    }
    expect(o).toBe(mp4.length);
    expect(boxes[0]).toBe('ftyp');
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    expect(mp4.includes(Buffer.from('trak'))).toBe(true);
    expect(mp4.includes(Buffer.from('avc1'))).toBe(true);
  });

  it('the served MP4 and MP3 are the committed fixture files, byte for byte', () => {
    const dir = new URL('../../src/sim/fixtures/', import.meta.url);
    expect(buildMp4().equals(readFileSync(new URL('sample.mp4', dir)))).toBe(true);
    expect(buildMp3().equals(readFileSync(new URL('sample.mp3', dir)))).toBe(true);
  });
});
