/**
 * The small real media files the simulator serves at `/media/<name>.<ext>`, so finished jobs point at URLs a
 * client can actually download and check (PNG / MP4 / MP3 signatures), without shipping binary fixtures.
 */
import { deflateSync } from 'node:zlib';
import { SAMPLE_MP3_BASE64, SAMPLE_MP4_BASE64 } from './media-fixtures.js';

export type MediaKind = 'png' | 'mp4' | 'mp3';

export const MEDIA_CONTENT_TYPES: Record<MediaKind, string> = {
  png: 'image/png',
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
};

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO-HDLC), as PNG chunks need. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([len, typeAndData, crc]);
}

/** A valid `size`×`size` RGB PNG (a colour gradient, so it is visibly an image when opened). */
export function buildPng(size = 16): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // no interlace
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3);
    raw[row] = 0; // filter type None
    for (let x = 0; x < size; x++) {
      const p = row + 1 + x * 3;
      raw[p] = Math.round((x / (size - 1)) * 255);
      raw[p + 1] = Math.round((y / (size - 1)) * 255);
      raw[p + 2] = 160;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A real 2-second H.264 MP4 (ftyp, moov with one video track, mdat; faststart), so a `<video>` can play it
 * (src/sim/media-fixtures.ts says how it was made).
 */
export function buildMp4(): Buffer {
  return Buffer.from(SAMPLE_MP4_BASE64, 'base64');
}

/** A real 1-second MP3 tone, so a voice preview audibly plays. */
export function buildMp3(): Buffer {
  return Buffer.from(SAMPLE_MP3_BASE64, 'base64');
}

/** Built once per process: they never change. */
let cache: Record<MediaKind, Buffer> | undefined;
export function mediaBytes(kind: MediaKind): Buffer {
  cache ??= { png: buildPng(), mp4: buildMp4(), mp3: buildMp3() };
  return cache[kind];
}

export function isMediaKind(ext: string): ext is MediaKind {
  return ext === 'png' || ext === 'mp4' || ext === 'mp3';
}
