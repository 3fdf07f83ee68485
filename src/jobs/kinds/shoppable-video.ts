/** Shoppable ad videos. */
import { envelopeView } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('shoppable_video');

export default defineKind({
  kind: 'shoppable_video',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /shopable/videos/status',
    read: async (client, ref, o) => envelopeView(await client.ads.videoStatus(ref.id, o), ref.id, 'video'),
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /shopable/videos', tool: 'create_shoppable_video' }],
  // Template-driven ads: the spec's closest upscale `video_type` is template_ads.
  sim: { job: 'shoppable_video', ownedVideoType: 'template_ads' },
});
