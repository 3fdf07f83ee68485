/** Gesture animations; the status payload may carry the charge. */
import { fromState, withRequest } from '../view.js';
import { defineKind, singleId } from './define.js';

const ids = singleId('gesture');

export default defineKind({
  kind: 'gesture',
  handleShape: '<id>',
  ...ids,
  status: {
    endpoint: 'GET /gestures/status',
    async read(client, ref, o) {
      const res = await client.gestures.status(ref.id, o);
      const d = res.data;
      const charged = (d as Record<string, unknown>).credits_charged;
      const view = fromState(d.status, [d.video_url], 'video', d.reason);
      return withRequest(
        {
          ...view,
          remote: { id: d.id ?? ref.id, ...(d.project_id ? { project_id: d.project_id } : {}) },
          ...(typeof charged === 'number' ? { creditsCharged: charged } : {}),
        },
        res,
      );
    },
    fromIds: ids.fromIds,
  },
  submits: [{ endpoint: 'POST /gestures/generate', tool: 'animate_gesture' }],
  sim: { job: 'gesture', ownedVideoType: 'gestures' },
});
