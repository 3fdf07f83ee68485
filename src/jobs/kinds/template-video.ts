/** Content-library template videos; the handle carries the library's `db_id`. */
import { fromState, withRequest } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('template_video');

export default defineKind({
  kind: 'template_video',
  handleShape: '<db_id>',
  ...ids,
  status: {
    endpoint: 'GET /content-library/status',
    async read(client, ref, o) {
      const res = await client.library.status(ref.id, o);
      return withRequest(
        {
          ...fromState(res.data.status, [res.data.url], 'video', res.data.reason),
          remote: { id: res.data.db_id ?? ref.id },
        },
        res,
      );
    },
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /content-library/generate', tool: 'create_template_video' }],
  // Template-driven ads, like shoppable videos.
  sim: { job: 'library', ownedVideoType: 'template_ads' },
});
