/** Shoppable ad images. */
import { envelopeView } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('shoppable_image');

export default defineKind({
  kind: 'shoppable_image',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /shopable/images/status',
    read: async (client, ref, o) => envelopeView(await client.ads.imageStatus(ref.id, o), ref.id, 'image'),
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /shopable/images', tool: 'create_shoppable_image' }],
  // Images: nothing to upscale, so no owned-video type.
  sim: { job: 'shoppable_image' },
});
