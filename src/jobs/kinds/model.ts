/**
 * Enterprise model runs: `model:<media>:<request_id>`, media image|video|any. The media is a lookup hint
 * (`any`: the spec checks video, then image), not part of the job's identity.
 */
import type { JobOutput } from '../envelope.js';
import { errorText, type JobView, NO_OUTPUT_NOTE, nonEmpty, normaliseState, withRequest } from '../view.js';
import { defineKind } from './define.js';

export type ModelMedia = 'image' | 'video' | 'any';
export type ModelRef = { kind: 'model'; id: string; media: ModelMedia };

const isMedia = (m: string | undefined): m is ModelMedia => m === 'image' || m === 'video' || m === 'any';

export default defineKind<'model', ModelRef>({
  kind: 'model',
  handleShape: '<media>:<request_id>',
  parts: (ref: ModelRef) => [ref.media, ref.id],
  fromParts: ([media, id, ...rest]): ModelRef | undefined =>
    rest.length === 0 && id && isMedia(media) ? { kind: 'model', media, id } : undefined,
  identity: (ref) => ref.id,
  remote: (ref) => ({ id: ref.id }),
  status: {
    endpoint: 'GET /enterprise/status/{requestId}',
    async read(client, ref, o) {
      const res = await client.enterprise.status(ref.id, ref.media === 'any' ? undefined : ref.media, o);
      const d = res.data;
      const outputs: JobOutput[] = [
        ...(d.output?.output_link ?? []).filter(nonEmpty).map((url) => ({ url, media: 'image' as const })),
        ...(nonEmpty(d.video_url) ? [{ url: d.video_url, media: 'video' as const }] : []),
      ];
      const { state, note } = normaliseState(d.status);
      const remote = { id: d.request_id ?? ref.id, ...(d.project_id ? { project_id: d.project_id } : {}) };
      let view: JobView;
      if (state === 'completed') {
        view =
          outputs.length > 0
            ? { status: 'completed', outputs }
            : { status: 'processing', outputs: [], note: NO_OUTPUT_NOTE };
      } else if (state === 'failed') {
        const reason = d.reason ?? errorText(d.error) ?? 'the platform reported the job failed without a reason';
        view = { status: 'failed', outputs: [], reason };
      } else {
        view = { status: 'processing', outputs: [], ...(note ? { note } : {}) };
      }
      return withRequest({ ...view, remote }, res);
    },
    fromIds: (ids) => ({ kind: 'model', id: ids.id, media: ids.media ?? 'any' }),
  },
  submits: [{ endpoint: 'POST /enterprise/generate', tool: 'run_model' }],
  // Outputs of many models, no single upscale type.
  sim: { job: 'enterprise' },
  sample: (id) => ({ kind: 'model', id, media: 'video' }),
});
