import { z } from 'zod';
import { defineTool } from '../../src/define-tool.js';
import { talkingVideoEstimate } from '../../src/paid/pricing/estimate.js';
import { requireAvatar, requireVoice } from '../_shared/catalog-ids.js';
import { avatarId, voiceId, voiceScript, voiceSettings } from '../_shared/params.js';
import { publicMediaUrl, webhookUrlField } from '../_shared/urls.js';

/** POST /video/generate: a talking-actor video from a script, an avatar and a voice (platform-api.md). */
export default defineTool({
  name: 'create_talking_video',
  title: 'Talking-actor video',
  toolset: 'video',
  description:
    'An avatar (list_avatars) speaks a script with a voice (list_voices) or your audio. Variants: create_campaign. Billable, 100 credits.',
  input: {
    avatar_id: avatarId(),
    // Required even with voice_url (spec: "required even when voice_url is given").
    voice_script: voiceScript(),
    video_name: z.string().trim().min(1).max(200).optional().describe('video and project name'),
    voice_url: publicMediaUrl('audio (≤120 s) instead of TTS').optional(),
    voice_id: voiceId().optional(),
    voice_settings: voiceSettings().optional(),
    webhook_url: webhookUrlField(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async validate(input, ctx) {
    await requireAvatar(ctx, input.avatar_id);
    // Checked even with voice_url: the platform refuses a named voice that does not exist either way.
    if (input.voice_id !== undefined) await requireVoice(ctx, input.voice_id);
  },
  billable: {
    kind: () => 'actor_video',
    // Spec: webhook_url, "public HTTP(S) callback URL; keep polling as fallback".
    acceptsCallback: () => true,
    estimate: async () => talkingVideoEstimate(),
    summary: (input) =>
      `talking video with avatar ${input.avatar_id}, ${input.voice_script.length}-char script, ${
        input.voice_url ? 'own audio' : input.voice_id ? `voice ${input.voice_id}` : "the avatar's default voice"
      }`,
  },
  request(input) {
    const { avatar_id, voice_script, video_name, voice_url, voice_id, voice_settings, webhook_url } = input;
    const body = {
      avatar_id,
      voice_script,
      ...(video_name ? { video_name } : {}),
      ...(voice_url ? { voice_url } : {}),
      ...(voice_id ? { voice_id } : {}),
      ...(voice_settings ? { voice_settings } : {}),
      ...(webhook_url ? { webhook_url } : {}),
    };
    return { route: '/video/generate', body };
  },
  async run(_input, ctx, { body }) {
    // No `signal`: once the paid POST is on its way, finishing it is the only way to learn the job id.
    // Cancelling the call must not turn an accepted job into an unknown one.
    const { data, requestId } = await ctx.client.actors.generate(body);
    return { ref: { kind: 'actor_video', id: data.id }, requestId, remote: { id: data.id } };
  },
});
