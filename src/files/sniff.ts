/**
 * A local file's type from its own first bytes, against the field's media kind (issue 22 item 2). The
 * signatures are save_outputs' (src/client/media-sniff.ts): one allow-list of what the platform handles, so a
 * key file or a config named `x.png` is never staged.
 */
import { SNIFF_BYTES, type SniffedMedia, sniffMedia } from '../client/media-sniff.js';
import type { MediaKind } from './media-ref.js';

export { SNIFF_BYTES };

/** The sniffed type when it is of `kind`, else undefined. */
export function sniffAs(kind: MediaKind, head: Uint8Array): SniffedMedia | undefined {
  const found = sniffMedia(head);
  return found?.family === kind ? found : undefined;
}
