/** Talking-actor videos (POST /video/generate). */
import { envelopeView } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('actor_video');

export default defineKind({
  kind: 'actor_video',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /video/status',
    read: async (client, ref, o) => envelopeView(await client.actors.status(ref.id, o), ref.id, 'video'),
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /video/generate', tool: 'create_talking_video' }],
  sim: { job: 'actor', ownedVideoType: 'video' },
});
