/** The sentences job and campaign progress say (wait_for_jobs' progress, task status, change notifications). */

/** "k of N done": a campaign's items, or the units of a wait. */
export const doneOf = (done: number, total: number): string => `${done} of ${total} done`;

/** One open handle in a progress line: `campaign:x 2 of 6 done`, `actor_video:y processing`. */
export const openPart = (handle: string, state: string): string => `${handle} ${state}`;

/** A progress line: the count, then the first open handles (and how many more). */
export function progressLine(done: number, total: number, open: readonly string[], more: number): string {
  if (open.length === 0) return doneOf(done, total);
  return `${doneOf(done, total)}; ${open.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

/** A single job's change as a notification tells it. */
export const jobChanged = (status: string): string => `the job is ${status}`;
