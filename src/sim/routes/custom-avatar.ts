/**
 * POST /custom-avatar/generate (multipart/form-data). The avatar is returned at once (no status endpoint) and
 * joins the account's avatar list, usable as avatar_id. Insufficient credits answer 400, as the spec says.
 */
import { randomBytes } from 'node:crypto';
import { bad } from '../check.js';
import { isAccessible } from '../public-url.js';
import { customVoice } from '../seed.js';
import { type FormValue, type SimAvatar, type SimContext, SimHttpError, type SimRoute } from '../types.js';
import { ok } from './common.js';

const PRICE = 100;
/** Spec limit: 10 MiB per file, image and voice alike. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** The voice assigned when no sample is sent (spec: "when omitted an assigned voice is used"). */
const ASSIGNED_VOICE_ID = 'voice_en_rachel';

function checkPart(field: 'image' | 'voice', v: FormValue, ctx: SimContext): void {
  const mediaPrefix = field === 'image' ? 'image/' : 'audio/';
  if (typeof v === 'string') {
    if (!ctx.isPublicUrl(v)) bad(`${field}: must be a file or a public http(s) URL`);
    if (field === 'voice' && !isAccessible(v)) bad('voice: is not accessible');
    return;
  }
  if (v.size === 0) bad(`${field}: file is empty`);
  if (v.size > MAX_FILE_BYTES) bad(`${field}: file too large (at most 10 MiB)`);
  if (!v.contentType.toLowerCase().startsWith(mediaPrefix)) {
    bad(`${field}: invalid file type ${v.contentType || '(none)'}; expected ${mediaPrefix}*`);
  }
}

export const customAvatarRoutes: SimRoute[] = [
  {
    method: 'POST',
    path: '/custom-avatar/generate',
    style: 'envelope',
    billable: true,
    insufficientStatus: 400,
    handle(req, ctx) {
      const account = req.account;
      if (!account.features.customAvatar) {
        throw new SimHttpError(403, 'your subscription does not include custom avatars');
      }
      if (!req.form) bad('body: must be multipart/form-data with an image field');
      const image = req.form.get('image');
      if (image === undefined || image === '') bad('image: is required');
      checkPart('image', image, ctx);
      const voice = req.form.get('voice');
      if (voice !== undefined && voice !== '') checkPart('voice', voice, ctx);

      ctx.charge(account, PRICE, 400);
      const suffix = randomBytes(6).toString('hex');
      let selectedVoiceId = ASSIGNED_VOICE_ID;
      if (voice !== undefined && voice !== '') {
        const cloned = customVoice(ctx.mediaUrl, `voice_custom_${suffix}`, `Custom voice ${suffix}`);
        ctx.data.customVoices.set(account.key, [...(ctx.data.customVoices.get(account.key) ?? []), cloned]);
        selectedVoiceId = cloned.id;
      }
      const avatar: SimAvatar = {
        id: `ca_${suffix}`,
        name: `Custom avatar ${suffix}`,
        thumbnail: ctx.mediaUrl('png', `ca_${suffix}`),
        gender: '',
        skin: '',
        age_range: '',
        type: 'custom',
        default_voice_id: selectedVoiceId,
        _sim: true,
      };
      ctx.data.customAvatars.set(account.key, [...(ctx.data.customAvatars.get(account.key) ?? []), avatar]);
      return ok({
        status: true,
        message: 'custom avatar created',
        avatar_id: avatar.id,
        thumbnail_url: avatar.thumbnail,
        audio_url: ctx.mediaUrl('mp3', `ca_${suffix}`),
        selected_voice_id: selectedVoiceId,
        _sim: true,
      });
    },
  },
];
