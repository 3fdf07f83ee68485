/** Every sentence the reference bot says in a thread (one place, like the server's wording.ts files). */

/** `<@U…>` for a caller id the bot can map to a Slack user, else the name or id. */
export function who(approver) {
  const slack = /^slack:[^:]+:([A-Z0-9_]+)$/.exec(approver.id ?? '');
  const mention = slack ? `<@${slack[1]}>` : undefined;
  const name = approver.name;
  if (mention) return name ? `${mention} (${name})` : mention;
  return name ? `${name} (${approver.id})` : approver.id;
}

export const SYSTEM = [
  'You make videos with the genplat tools for the person talking to you in a chat thread.',
  'For several variants, call create_campaign once. A paid tool first answers with a quote: stop there and say',
  'the quote in one line; the person confirms with the button the bot shows (never call a tool with a',
  'confirmation_token yourself). Keep answers short.',
].join(' ');

export const words = {
  consentTitle: 'Confirm this request?',
  consentFooter: (requester) => `Only <@${requester}> can confirm. Nothing is sent or charged before that.`,
  confirm: 'Confirm',
  cancel: 'Cancel',
  confirmedBy: (user, summary) => `✅ Confirmed by <@${user}>: ${summary}`,
  cancelledBy: (user) => `Cancelled by <@${user}>; nothing was sent or charged.`,
  onlyRequesterConfirms: (requester) => `Only <@${requester}> can confirm or cancel their own request.`,
  quoteGone: 'This quote was already used or is no longer known to the bot: ask again.',
  modelMayNotConfirm:
    'Refused by the bot: a paid call is confirmed only by its person clicking Confirm in the thread (no confirmation_token from the model).',
  approvalTitle: 'Needs an approval',
  approvalText: (summary, approvers, until) =>
    `${summary}\nWaiting for approval by ${approvers.map(who).join(', ')}${until ? ` until ${until}` : ''}. Nothing is sent or charged before that.`,
  approve: 'Approve',
  decline: 'Decline',
  approvalPage: 'Open the approval page',
  requesterCannotDecide: (approvers) =>
    `You asked for this, so you cannot approve it yourself: it waits for ${approvers.map(who).join(', ')}.`,
  decisionRefused: (reason) => `Your decision was not taken: ${reason}`,
  approvedBy: (user) => `✅ Approved by <@${user}>: sending now. The results will be posted here.`,
  declinedBy: (user) => `❌ Declined by <@${user}>: nothing was sent or charged.`,
  stillWaiting: (user) => `Approval by <@${user}> recorded; more approvals are needed.`,
  decidedElsewhere: (decision, by) =>
    decision === 'approved'
      ? `✅ Approved${by ? ` by ${by}` : ''}: sending now.`
      : decision === 'declined'
        ? `❌ Declined${by ? ` by ${by}` : ''}: nothing was sent or charged.`
        : 'Expired: nobody approved it in time; nothing was sent or charged.',
  started: (handle) => `Started (${handle}). The results will be posted here.`,
  progress: (message) => `⏳ ${message}`,
  outputTitle: (kind) => ({ video: 'Video', image: 'Image', audio: 'Audio' })[kind] ?? 'Output',
  videoDone: (title, charged) => `🎬 ${title}${charged == null ? '' : ` (${charged} credits)`}`,
  outputLink: (title, url) => `${title}: ${url}`,
  jobFailed: (tool, reason, refunded) =>
    `⚠️ ${tool} failed: ${reason}${refunded ? ` (${refunded} credits refunded)` : ''}`,
  campaignDone: (completed, total, failed, charged) =>
    `Campaign finished: ${completed} of ${total} done${failed ? `, ${failed} failed` : ''}${charged == null ? '' : `, ${charged} credits charged`}.`,
  budget: (percent, spent, limit) => `Heads-up: ${percent} % of today's limit used (${spent} of ${limit} credits).`,
  callFailed: (reason) => `Sorry, that did not work: ${reason}`,
};
