/**
 * Every sentence the approval page says to a person (kept beside the page, as src/paid/wording.ts is beside the
 * paid path). Nothing here reads config or the store.
 */
export const PAGE = {
  notALink: 'This is not an approval link of this server.',
  expired: 'This approval link has expired. Nothing was decided; ask for the request to be sent again.',
  unknown: 'This approval is not known here (it may have been removed).',
  decided: (state: string) => `This approval was already decided (${state}). A link decides once.`,
  signInFailed: (why: string) => `The sign-in did not complete: ${why}. Open the approval link again to retry.`,
  flowLost:
    'The sign-in could not be matched to an approval link (it took too long, or cookies are blocked). Open the approval link again.',
  requester: 'You asked for this call: someone else on the approver list must decide it.',
  unlisted: 'You are not on the approver list of this request, so you cannot decide it.',
  sessionLost: 'Your sign-in for this approval has ended. Open the approval link again to sign in.',
  badForm: 'This form was not issued to your sign-in. Open the approval link again.',
  approved: 'Approved. The call may now go ahead; you can close this page.',
  declined: 'Declined. The call will not be sent; you can close this page.',
  refused: (reason: string) => `Your decision was not recorded: ${reason}`,
  unavailable: 'The approval service is unavailable right now. Nothing was decided; try the link again shortly.',
};
