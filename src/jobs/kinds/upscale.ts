/**
 * Upscale attempts: `upscale:<video_type>:<project_id>:<video_id>:<billing_id>`. The status read needs all
 * four ids; the attempt's identity is its billing id (one video can be upscaled more than once).
 */
import { upscaleView, withRequest } from '../view.js';
import { defineKind, required } from './define.js';

export type UpscaleRef = { kind: 'upscale'; id: string; videoType: string; projectId: string; billingId: string };

export default defineKind<'upscale', UpscaleRef>({
  kind: 'upscale',
  handleShape: '<video_type>:<project_id>:<video_id>:<billing_id>',
  parts: (ref: UpscaleRef) => [ref.videoType, ref.projectId, ref.id, ref.billingId],
  fromParts: (parts): UpscaleRef | undefined => {
    if (parts.length !== 4) return undefined;
    const [videoType, projectId, id, billingId] = parts as [string, string, string, string];
    return { kind: 'upscale', videoType, projectId, id, billingId };
  },
  identity: (ref) => ref.billingId,
  remote: (ref) => ({ id: ref.id, project_id: ref.projectId, billing_id: ref.billingId }),
  status: {
    endpoint: 'GET /upscale/status',
    async read(client, ref, o) {
      const res = await client.upscale.status(
        { video_id: ref.id, project_id: ref.projectId, video_type: ref.videoType, billing_id: ref.billingId },
        o,
      );
      return withRequest(upscaleView(res.data), res);
    },
    fromIds: (ids) => ({
      kind: 'upscale',
      id: ids.id,
      projectId: required('upscale', 'project_id', ids.project_id),
      videoType: required('upscale', 'video_type', ids.video_type),
      billingId: required('upscale', 'billing_id', ids.billing_id),
    }),
  },
  submits: [{ endpoint: 'POST /upscale/generate', tool: 'upscale_video' }],
  // An upscaled video is not registered for another upscale.
  sim: { job: 'upscale' },
  sample: (id) => ({ kind: 'upscale', id, videoType: id, projectId: id, billingId: id }),
});
