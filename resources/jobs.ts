import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';
import { UserInputError } from '../src/errors.js';
import { approvalEnvelope, heldEnvelope, isApprovalHandle, nameOfPeople } from '../src/jobs/approval-view.js';
import { decodeHandle } from '../src/jobs/handle.js';
import { assertKnownToCaller, resolveJob } from '../src/jobs/owner.js';
import { viewEnvelope } from '../src/jobs/status.js';
import type { JobRecord } from '../src/jobs/store.js';
import { jobResourceUri } from '../src/result.js';

/** Recent jobs only: the list is for orientation; list_jobs pages and filters. */
const RECENT = 50;
/** Jobs offered in resources/list: a short recent set, not the whole ledger. */
const LISTED = 20;

const brief = (r: JobRecord) => ({
  handle: r.handle,
  tool: r.tool,
  status: r.status,
  summary: r.summary,
  ...(r.creditsCharged !== undefined ? { credits_charged: r.creditsCharged } : {}),
  created_at: r.createdAt,
  outputs: r.outputs,
});

export default [
  defineResource({
    name: 'jobs',
    uri: 'genplat://jobs',
    title: 'Recent jobs',
    description: 'The newest jobs in the local ledger (status as last seen). Each job is also genplat://jobs/{handle}.',
    read: async ({ jobs, owner }) => ({ jobs: (await jobs.list({ owner, limit: RECENT })).map(brief) }),
  }),
  defineResourceTemplate({
    name: 'job',
    uriTemplate: 'genplat://jobs/{handle}',
    title: 'Job',
    description:
      'One job envelope, read live (at most one platform read per job per 5 s). Subscribe to be told when it changes.',
    list: async ({ jobs, owner }) =>
      (await jobs.list({ owner, limit: LISTED })).map((r) => ({
        uri: jobResourceUri(r.handle),
        name: r.handle,
        description: `${r.summary} (${r.status})`,
      })),
    complete: { handle: async ({ jobs, owner }) => (await jobs.list({ owner, limit: 100 })).map((r) => r.handle) },
    read: async (deps, _uri, vars) => {
      const { poller, jobs, owner } = deps;
      const raw = variable(vars, 'handle') ?? '';
      const approvals = { ...deps, nameOf: nameOfPeople(deps.config) };
      // A call held for approval (issue 28 item 5): as get_job says it (src/jobs/approval-view.ts).
      const plain = safeText(raw);
      if (isApprovalHandle(plain)) return approvalEnvelope(approvals, plain, 'handle');
      // Handles are URI-safe already; a client may still have percent-encoded the whole handle.
      const ref = decodeHandle(raw) ?? safeDecode(raw);
      if (!ref) throw new UserInputError('handle', 'not a job handle (e.g. actor_video:abc123); see list_jobs');
      // HTTP mode: another caller's job, by any alias, is refused before the platform is asked.
      const job = await resolveJob(jobs, owner, ref, 'handle');
      const held = job.rec && (await heldEnvelope(approvals, [job.rec], job.rec.handle, job.rec.kind));
      if (held) return held;
      const { view } = await poller.read(job.ref);
      assertKnownToCaller(owner, job, view.status, 'handle');
      return viewEnvelope(job.handle, job.ref, view, job.rec);
    },
  }),
];

function safeText(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function safeDecode(raw: string) {
  try {
    return decodeHandle(decodeURIComponent(raw));
  } catch {
    return undefined;
  }
}
