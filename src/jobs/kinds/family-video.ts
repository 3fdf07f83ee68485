/** The dedicated model family's videos (`<vendorC>` resolved from GENPLAT_VENDORS by the client). */
import { envelopeView } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('family_video');

export default defineKind({
  kind: 'family_video',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /<vendorC>/status',
    read: async (client, ref, o) => envelopeView(await client.family.status(ref.id, o), ref.id, 'video'),
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /<vendorC>/generate', tool: 'create_family_video' }],
  // Family videos register as owned videos by their own rule (a vendor-named type: src/sim/routes/family.ts).
  sim: { job: 'family' },
});
