/** Real media headers + deterministic filler: the bytes a sniffer accepts, and a marker no result may echo. */
import { createHash, randomBytes } from 'node:crypto';

export const MARKER = 'GENPLAT-FILE-CONTENT-MARKER';

const withMarker = (head: Buffer, size: number) =>
  Buffer.concat([head, Buffer.from(MARKER), randomBytes(Math.max(0, size - head.length - MARKER.length))]);

export const png = (size = 4096) =>
  withMarker(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]), size);

export function wav(size = 8192): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(size - 8, 4);
  h.write('WAVEfmt ', 8);
  return withMarker(h, size);
}

/** An ISO BMFF `ftyp` box (brand isom) then filler: an MP4 by its first bytes. */
export function mp4Header(): Buffer {
  const h = Buffer.alloc(24);
  h.writeUInt32BE(24, 0);
  h.write('ftypisom', 4);
  h.writeUInt32BE(512, 12);
  h.write('isommp41', 16);
  return h;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
