/**
 * Every sentence the Slack blocks say (src/slack/blocks.ts). Figures and records come in; nothing here reads
 * config or the store.
 */

const fmt = (n: number) => n.toLocaleString('en-US');

/** A block's header by the envelope's status. */
export const STATUS_HEADER: Record<string, string> = {
  confirmation_required: 'Paid request: not sent yet',
  approval_required: 'Waiting for approval',
  declined: 'Not sent',
  submitted: 'Started',
  processing: 'In progress',
  completed: 'Done',
  failed: 'Failed',
  unknown: 'Outcome not known',
};

export const NOT_SENT_YET =
  'Nothing is sent or charged until it is confirmed (Confirm on the card, the form, or the assistant with the token).';

export const credits = (n: number) => `${fmt(n)} credit${n === 1 ? '' : 's'}`;

/** An output's cost: charged when the platform reported it, else its quote. */
export function costText(charged: number | undefined, quote: number | undefined): string {
  if (charged !== undefined) return `charged ${credits(charged)}`;
  if (quote !== undefined) return `quoted at most ${credits(quote)}`;
  return 'cost not reported yet';
}

/** "k of N done" with what is running. */
export const progressText = (progress: string, running: number) =>
  running > 0 ? `${progress} · ${running} running` : progress;

export const handleText = (handle: string) => `Handle \`${handle}\``;

/** A video the block cannot play (no thumbnail: Slack's video block needs one): a link. */
export const videoLink = (title: string, url: string, cost: string) => `*${title}* · ${cost}\n<${url}|Open the video>`;
export const audioLink = (title: string, url: string, cost: string) => `*${title}* · ${cost}\n<${url}|Open the audio>`;

export const videoAlt = (title: string) => `Video: ${title}`;
export const imageAlt = (title: string) => `Image: ${title}`;

/** What did not fit Block Kit's 50 blocks: counted, never dropped silently. */
export const moreBlocks = (n: number, what: string) => `… and ${fmt(n)} more ${what} (get_job shows every one)`;

/** A text cut at Block Kit's 3,000 characters. */
export const CUT = '… (cut: Block Kit shows at most 3,000 characters; get_job has the rest)';

export const approvalPageLink = (url: string) => `<${url}|Open the approval page>`;

export const listSpend = (spent: number, limit: number | undefined) =>
  `Spent today: ${credits(spent)}${limit !== undefined ? ` of ${credits(limit)}` : ''}`;

export const NO_JOBS = 'No jobs on record.';

/** A campaign just admitted: nothing done yet. */
export const admittedText = (n: number) => `0 of ${fmt(n)} done · ${fmt(n)} admitted, being sent one by one`;
