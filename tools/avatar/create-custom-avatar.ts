import type { MediaPart } from '../../src/client/types.js';
import { defineTool, type FilePart } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { customAvatarEstimate } from '../../src/paid/pricing/estimate.js';
import {
  checkMediaFile,
  describeMedia,
  isLocalMedia,
  isUploadRef,
  type MediaField,
  mediaPart,
  mediaSource,
  uploadedMedia,
} from '../_shared/media-file.js';

/** The multipart fields as sent: a URL as a string field, a file as its bytes (read once, in request()). */
type AvatarForm = { image: string | FilePart; voice?: string | FilePart };

const asField = (p: MediaPart): string | FilePart =>
  'url' in p ? p.url : { filename: p.filename, contentType: p.contentType, bytes: p.bytes };
const asPart = (f: string | FilePart): MediaPart => (typeof f === 'string' ? { url: f } : f);

/** POST /custom-avatar/generate (multipart): the avatar comes back in the answer; there is no status endpoint. */
export default defineTool({
  name: 'create_custom_avatar',
  title: 'Custom avatar',
  toolset: 'avatar',
  description:
    'Avatar from a portrait (+ voice sample; ≤ 10 MiB each); returns avatar_id at once. Needs custom-avatar access. Billable.',
  input: {
    image: mediaSource('portrait (png, jpeg, webp): URL, local path or upload reference'),
    voice: mediaSource('voice sample (mp3, wav, m4a, ogg): URL, local path or upload reference').optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    for (const field of ['image', 'voice'] as const satisfies MediaField[]) {
      const value = input[field];
      if (value === undefined || !isLocalMedia(value)) continue;
      // A person's upload (HTTP): checked now, read again in request() (same bytes: uploads never change).
      if (isUploadRef(value)) {
        await uploadedMedia(field, value, ctx.files?.uploads, ctx.owner);
        continue;
      }
      // Over HTTP the caller is remote: the server's disk is not theirs, and reading it for them would let
      // any caller upload this machine's files. Local paths are for stdio, where the server is the user's.
      if (ctx.owner !== undefined) {
        throw new UserInputError(
          field,
          'local file paths are accepted only on a local (stdio) server; give a public URL',
        );
      }
      await checkMediaFile(field, value, (await ctx.localRoots?.()) ?? []);
    }
  },
  billable: {
    kind: () => 'custom_avatar',
    estimate: async () => customAvatarEstimate(),
    summary: (i) => `custom avatar from ${describeMedia(i.image)}${i.voice ? `, voice ${describeMedia(i.voice)}` : ''}`,
  },
  // The files are read here, once: the fingerprint covers their bytes (sha256), and run() sends those bytes,
  // so a file changed after the user agreed cannot go out under that consent.
  async request(input, ctx) {
    const roots = (await ctx.localRoots?.()) ?? [];
    const uploads = { source: ctx.files?.uploads, owner: ctx.owner };
    const body: AvatarForm = { image: asField(await mediaPart('image', input.image, roots, uploads)) };
    if (input.voice !== undefined) body.voice = asField(await mediaPart('voice', input.voice, roots, uploads));
    return { route: '/custom-avatar/generate', body };
  },
  async run(_input, ctx, { body }) {
    const image = asPart(body.image);
    const parts = body.voice === undefined ? { image } : { image, voice: asPart(body.voice) };
    // No `signal`: once the paid POST is on its way, finishing it is the only way to learn the avatar id.
    const { data, requestId } = await ctx.client.avatars.createCustom(parts);
    return {
      ref: { kind: 'custom_avatar', id: data.avatar_id },
      requestId,
      status: 'completed',
      outputs: data.thumbnail_url ? [{ url: data.thumbnail_url, media: 'avatar' }] : [],
      remote: { id: data.avatar_id },
      details: {
        avatar_id: data.avatar_id,
        ...(data.thumbnail_url ? { thumbnail_url: data.thumbnail_url } : {}),
        ...(data.audio_url ? { audio_url: data.audio_url } : {}),
        ...(data.selected_voice_id ? { selected_voice_id: data.selected_voice_id } : {}),
        usage: 'pass avatar_id to create_talking_video',
      },
    };
  },
});
