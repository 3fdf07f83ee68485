/**
 * What a job's record says when its POST answer is held nowhere durable (src/store/spool.ts writes it, src/paid/
 * settle.ts puts it first in the agent's next step). The store's own sentence, beside the spool that knows it: the
 * store never imports the paid path (test/paid/layers.test.ts).
 */
/** How a job's record begins when its ids are held nowhere durable (src/store/spool.ts, src/paid/settle.ts). */
export const NOT_RECORDED_LEAD = 'Not recorded anywhere';

/**
 * The platform took a paid POST, but neither the store (unreachable) nor the local spool (a full disk, a missing
 * state dir) could take its answer: the ids live only in this server's memory. Said plainly, with the ids, so the
 * person can keep them: a restart before the store is back loses them (invariant 3 cannot be kept here).
 */
export function notRecordedNote(s: {
  handle?: string | undefined;
  remote?: Record<string, string> | undefined;
  ref?: { id: string } | undefined;
  requestId?: string | undefined;
}): string {
  const jobId = s.ref?.id ?? Object.values(s.remote ?? {})[0];
  const ids = [
    jobId ? `platform job id ${jobId}` : undefined,
    s.requestId ? `request id ${s.requestId}` : undefined,
    s.handle ? `handle ${s.handle}` : undefined,
  ].filter(Boolean);
  return `${NOT_RECORDED_LEAD}: the platform accepted and may charge this job (${ids.join(', ') || 'no id returned'}), but the job store is unreachable and the local spool could not be written (disk full or state dir missing). The ids are held only in this server's memory and are lost if it restarts before the store is back: keep this id and tell the operator.`;
}
