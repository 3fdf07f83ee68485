/**
 * `decide_approval` (issue 28 item 6, carriers b and a): approve or decline a paid call that waits for an approval.
 * The decider is the verified caller (the HTTP request's token or sign-in: `ctx.owner`), never an argument; the
 * rule (listed approver, never the requester, one decision each, before expiry) is judged by the store inside
 * its transaction (src/approvals/store-desk.ts). Carrier: `slack` for a Slack person (a bot relaying a button as
 * them), `app` when the call carries the nonce of a View this server served to this caller (the approval card's
 * button), else `tool`. Over stdio there is one local person, who cannot be the second, proven person an approval
 * needs: refused. A refusal records nothing; nothing is ever sent by this tool itself (the server sends the held
 * request once an approval closes it: `onApprovalDecided`).
 */
import { z } from 'zod';
import { APPROVAL_META, approvalCardMeta } from '../../src/approvals/app-meta.js';
import { approvalHandle, parseApprovalHandle } from '../../src/approvals/handle.js';
import { type OnDecided, storeApprovalDesk } from '../../src/approvals/store-desk.js';
import { STDIO_CANNOT_DECIDE } from '../../src/approvals/wording.js';
import { JOB_VIEWER_URI } from '../../src/apps/uris.js';
import { viewNonceProblem } from '../../src/apps/view-nonce.js';
import { defineTool, type ToolContext } from '../../src/define-tool.js';
import { UserInputError } from '../../src/errors.js';
import { personKeyIn } from '../../src/people/same-person.js';
import type { ApprovalCarrier } from '../../src/store/approval-types.js';

const NOTHING = 'Nothing was recorded, sent or charged.';

/** How the decider proved who they are (recorded in the audit; never changes who may decide). */
async function carrierOf(ctx: ToolContext, owner: string, viewNonce: string | undefined): Promise<ApprovalCarrier> {
  if (owner.startsWith('slack:')) return 'slack';
  if (viewNonce && !viewNonceProblem(await ctx.jobs.consentKey(), viewNonce, owner, Date.now())) return 'app';
  return 'tool';
}

/** Until the paid path is connected (the lead's wiring), a closed approval is only logged: nothing is sent. */
const notConnected =
  (ctx: ToolContext): OnDecided =>
  (approval, outcome) => {
    ctx.log.warn('approvals: an approval was decided, but this server does not act on approvals yet', {
      approval: approval.id,
      state: outcome.state,
    });
  };

export default defineTool({
  name: 'decide_approval',
  title: 'Approve or decline a paid call',
  toolset: 'approvals',
  // stdio has one local person, who cannot be the second, proven person an approval needs.
  only: 'http',
  description:
    'Approve or decline a paid call waiting for approval (approval:<id>). You decide as yourself, the signed-in caller; only a listed approver other than the requester, once, before it expires. Once approved the server sends the call.',
  input: {
    approval: z.string().trim().min(1).max(100).describe('approval:<id> handle'),
    decision: z.enum(['approve', 'decline']).describe('your decision'),
    reason: z.string().trim().max(500).optional().describe('optional note for the audit'),
    view_nonce: z.string().max(200).optional().describe("the approval card's nonce (App only)"),
  },
  output: {
    approval: z.string(),
    state: z.enum(['pending', 'approved', 'declined']),
    decision: z.enum(['approve', 'decline']),
    message: z.string(),
    waiting_on: z.array(z.object({ rule: z.string(), missing: z.number(), approvers: z.array(z.string()) })),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // The App's approval card renders the answer (the approval's new state) in the job viewer.
  ui: JOB_VIEWER_URI,
  async run(input, ctx) {
    if (ctx.owner === undefined) throw new UserInputError('approval', STDIO_CANNOT_DECIDE, NOTHING);
    const id = parseApprovalHandle(input.approval);
    if (!id) throw new UserInputError('approval', 'not an approval handle (approval:<id>)', NOTHING);
    const desk = storeApprovalDesk(ctx.jobs, {
      onDecided: ctx.onApprovalDecided ?? notConnected(ctx),
      // The requester's other ids (GENPLAT_PEOPLE `also`) are the requester: refused like the requester.
      personOf: personKeyIn(ctx.config.people),
      log: ctx.log,
    });
    const carrier = await carrierOf(ctx, ctx.owner, input.view_nonce);
    const out = await desk.decideAs(id, { id: ctx.owner, carrier }, input.decision, input.reason);
    if (!out.ok) throw new UserInputError('approval', out.message, NOTHING);
    return {
      structured: {
        approval: approvalHandle(id),
        state: out.state,
        decision: input.decision,
        message: out.text,
        waiting_on: out.outstanding.map((o) => ({ rule: o.rule, missing: o.missing, approvers: [...o.waitingOn] })),
      },
      meta: { [APPROVAL_META]: approvalCardMeta(out.approval, ctx.owner, Date.now(), out.text) },
    };
  },
});
