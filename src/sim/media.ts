/**
 * The small real media files the simulator serves at `/media/<name>.<ext>`, so finished jobs point at URLs a
 * client can actually download and check (PNG / MP4 / MP3 signatures), without shipping binary fixtures.
 */
import { deflateSync } from 'node:zlib';

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

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'ascii');
  return Buffer.concat([head, body]);
}

/**
 * A minimal ISO-BMFF file: `ftyp` + `moov` (with a version-0 `mvhd`) + empty `mdat`. It parses as MP4 in
 * box readers (and starts with the `....ftyp` signature clients check); it holds no tracks.
 */
export function buildMp4(): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.from('isom', 'ascii'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2mp41', 'ascii'),
  );
  const mvhd = Buffer.alloc(100);
  let o = 0;
  o += 4; // version 0 + flags
  o += 8; // creation + modification time
  mvhd.writeUInt32BE(1000, o); // timescale: ms
  o += 4;
  mvhd.writeUInt32BE(0, o); // duration
  o += 4;
  mvhd.writeUInt32BE(0x00010000, o); // rate 1.0
  o += 4;
  mvhd.writeUInt16BE(0x0100, o); // volume 1.0
  o += 2 + 10; // + reserved
  for (const v of [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000]) {
    mvhd.writeUInt32BE(v, o); // identity matrix
    o += 4;
  }
  o += 24; // pre_defined
  mvhd.writeUInt32BE(1, o); // next_track_ID
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd)), box('mdat')]);
}

/** Ten silent MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each). */
export function buildMp3(): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat(Array.from({ length: 10 }, () => frame));
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
