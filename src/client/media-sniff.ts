/**
 * What a downloaded file IS, from its own first bytes (issue 19 item 4): save_outputs names a file by this, never
 * by the Content-Type or the URL a media host chose, so no host can make us write `.exe` or `.html` into the
 * user's folder. An allow-list of the containers the platform outputs (images, videos, audio); anything else is
 * refused. Signatures: the formats' own specifications (PNG §5.2, JFIF/EXIF SOI, GIF87a/89a, RIFF WEBP/WAVE,
 * ISO BMFF `ftyp` (ISO/IEC 14496-12 §4.3), EBML (Matroska/WebM), ID3v2 and MPEG audio frame sync, Ogg `OggS`,
 * FLAC `fLaC`).
 */

export interface SniffedMedia {
  /** The media type written in the result. */
  type: string;
  /** The file extension used for the saved file. */
  ext: string;
  family: 'image' | 'video' | 'audio';
}

/** Enough bytes for every signature below, including the EBML DocType of a WebM header. */
export const SNIFF_BYTES = 64;

const ascii = (b: Uint8Array, at: number, s: string) =>
  b.length >= at + s.length && [...s].every((c, i) => b[at + i] === c.charCodeAt(0));

const bytes = (b: Uint8Array, at: number, sig: number[]) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

/** Brands of ISO BMFF files that are QuickTime movies or audio-only MP4. */
const QUICKTIME_BRANDS = new Set(['qt  ']);
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ']);

/** The media type the first bytes of a file prove, or undefined when they prove none we save. */
export function sniffMedia(head: Uint8Array): SniffedMedia | undefined {
  if (bytes(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { type: 'image/png', ext: 'png', family: 'image' };
  }
  if (bytes(head, 0, [0xff, 0xd8, 0xff])) return { type: 'image/jpeg', ext: 'jpg', family: 'image' };
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return { type: 'image/gif', ext: 'gif', family: 'image' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return { type: 'image/webp', ext: 'webp', family: 'image' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return { type: 'audio/wav', ext: 'wav', family: 'audio' };
  if (ascii(head, 4, 'ftyp') && head.length >= 12) {
    const brand = String.fromCharCode(...head.subarray(8, 12));
    if (QUICKTIME_BRANDS.has(brand)) return { type: 'video/quicktime', ext: 'mov', family: 'video' };
    if (AUDIO_BRANDS.has(brand)) return { type: 'audio/mp4', ext: 'm4a', family: 'audio' };
    return { type: 'video/mp4', ext: 'mp4', family: 'video' };
  }
  if (bytes(head, 0, [0x1a, 0x45, 0xdf, 0xa3])) {
    // The EBML header's DocType says WebM or Matroska; it sits within the first few dozen bytes.
    const text = String.fromCharCode(...head.subarray(0, SNIFF_BYTES));
    return text.includes('webm')
      ? { type: 'video/webm', ext: 'webm', family: 'video' }
      : { type: 'video/x-matroska', ext: 'mkv', family: 'video' };
  }
  if (ascii(head, 0, 'ID3')) return { type: 'audio/mpeg', ext: 'mp3', family: 'audio' };
  // MPEG audio frame sync (11 bits set) with layer III (bits 01): an MP3 without an ID3 tag.
  if (head.length >= 2 && head[0] === 0xff && ((head[1] ?? 0) & 0xe6) === 0xe2) {
    return { type: 'audio/mpeg', ext: 'mp3', family: 'audio' };
  }
  if (ascii(head, 0, 'OggS')) return { type: 'audio/ogg', ext: 'ogg', family: 'audio' };
  if (ascii(head, 0, 'fLaC')) return { type: 'audio/flac', ext: 'flac', family: 'audio' };
  return undefined;
}
