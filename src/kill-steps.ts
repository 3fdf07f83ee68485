/**
 * Named steps of a paid call, for the crash tests only (test/durability/kill-steps.test.ts): with
 * `GENPLAT_TEST_KILL_AT=<step>` the server SIGKILLs itself there, as a power cut or `kill -9` would. Never set
 * it in production; it exists so "the intent or the job is in the store after any crash" is proven for each
 * step, not argued.
 *
 * - `before_admit`: consent given, nothing written (after restart: no record, no POST, no spend).
 * - `in_admit`: inside the admit transaction, intent inserted but not committed (rolled back: as before).
 * - `after_admit`: intent committed, POST not sent (record pending: spend held, a resend is refused).
 * - `after_post`: the platform accepted the POST, the answer is not settled (record pending, job exists).
 * - `campaign_admitted`: a campaign's COMMIT was answered, its items not yet marked acknowledged (after restart:
 *   released unsent after the grace period; the agent was answered nothing).
 * - `campaign_item_posted`: a campaign item's POST was answered, not settled (the first item: 1 of N sent).
 * - `answer_spooled`: the POST's answer is fsynced in the spool, the store not yet written (src/store/spool.ts;
 *   after restart the replay writes it: the job id is in the store).
 * - `answer_stored`: the store took the answer, its spool line is not yet marked done (after restart the replay
 *   finds the record settled and changes nothing).
 * - `after_approval`: an approval closed as approved (committed), its held items not yet unheld (after restart the
 *   outbox sweep finds the approved approval with held items and sends each once: src/paid/approval-send.ts).
 */
export const PAID_STEPS = ['before_admit', 'in_admit', 'after_admit', 'after_post'] as const;
/** A campaign's own steps (test/campaigns/kill.test.ts): a single call never reaches them. */
export const CAMPAIGN_STEPS = ['campaign_admitted', 'campaign_item_posted'] as const;
/** The spool's steps inside a settle (test/durability/spool-kill.test.ts): only a serving process's store has them. */
export const SPOOL_STEPS = ['answer_spooled', 'answer_stored'] as const;
/** A held request's step once its approval closed (test/approvals/held-send-kill.test.ts). */
export const APPROVAL_STEPS = ['after_approval'] as const;
/**
 * The event worker's step (test/events/delivery-kill.test.ts): `event_posted` = the receiver answered 2xx, the
 * delivery is not yet recorded (after restart it is delivered again under the same webhook-id: at least once).
 */
export const EVENT_STEPS = ['event_posted'] as const;
export type PaidStep =
  | (typeof PAID_STEPS)[number]
  | (typeof EVENT_STEPS)[number]
  | (typeof CAMPAIGN_STEPS)[number]
  | (typeof SPOOL_STEPS)[number]
  | (typeof APPROVAL_STEPS)[number];

/** A step callback that kills this process at `step`. */
export function stepReached(step: PaidStep | undefined): ((at: PaidStep) => void) | undefined {
  if (step === undefined) return undefined;
  return (at) => {
    if (at === step) process.kill(process.pid, 'SIGKILL');
  };
}
