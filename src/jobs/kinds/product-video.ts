/** Product-in-hand videos: three engines, one status endpoint. */
import { envelopeView } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('product_video');

export default defineKind({
  kind: 'product_video',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /product-in-hand/status',
    read: async (client, ref, o) => envelopeView(await client.products.status(ref.id, o), ref.id, 'video'),
    fromIds: ids.fromIds,
  },
  submits: [
    { endpoint: 'POST /product-in-hand/<vendorL>-v2/generate', tool: 'create_product_video (`engine: v2`)' },
    { endpoint: 'POST /product-in-hand/<vendorM>-human/generate', tool: 'create_product_video (`engine: human`)' },
    { endpoint: 'POST /product-in-hand/<vendorF>/generate', tool: 'create_product_video (`engine: scenes`)' },
  ],
  sim: { job: 'product', ownedVideoType: 'product-in-hand' },
});
