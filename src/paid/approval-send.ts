/**
 * What the server does with a held request once its approval closes (issue 28 item 5), on whichever instance
 * took the decision, or (recovery) on whichever instance's outbox sweep finds it later:
 *
 *   approved → re-price every held item (its tool's estimate on the stored arguments, the catalog read again):
 *              - a higher bound than the approved quote goes back for approval: a NEW approval for the new figure,
 *                the items re-tagged to it (still held, nothing sent);
 *              - else each item's reservation is raised to its new figure when higher (`raiseReservations`), the
 *                requester's ceilings are checked again (see `stillFits`), each item is unheld by
 *                compare-and-set (held → queued, a fresh consent window `sendBy` = now + the token TTL, marked
 *                acknowledged) and the outbox sweep is kicked: its claim (queued → pending) POSTs each item once.
 *   declined / expired → every held item released (compare-and-set from held: `rejected`, the reason says which,
 *              nothing sent, its reservation returned).
 *
 * Once per approval at a time: a lease (`approval:<id>`, Store.tryLease) keeps two instances from re-pricing the
 * same approval together; the compare-and-sets are what make "sent once" hold whatever happens. A process killed
 * after the decision's commit (kill step `after_approval`) leaves the items held under an `approved` approval:
 * `recover` (run by every sweep tick) finds them and finishes the job.
 *
 * Domain code: no MCP SDK import.
 */
import type { z } from 'zod';
import { approvalNeeded } from '../approvals/evaluate.js';
import { newApprovalId } from '../approvals/handle.js';
import type { OnDecided } from '../approvals/store-desk.js';
import type { Config } from '../config.js';
import type { BillableToolSpec, ToolContext } from '../define-tool.js';
import type { Estimate } from '../jobs/envelope.js';
import type { JobRecord, JobStore } from '../jobs/store.js';
import type { PaidStep } from '../kill-steps.js';
import type { Logger } from '../log.js';
import { personEntry } from '../people/same-person.js';
import type { ApprovalRecord } from '../store/approval-types.js';
import { evaluateBundleOfOne, evaluateCampaignAdmission } from './admission.js';
import { consentCard } from './consent-card.js';
import { admitRules, refusalError } from './guard.js';
import { type HeldRequest, heldReason } from './hold.js';
import { release, UNACKNOWLEDGED_GRACE_MS } from './outbox.js';
import { finaliseEstimate } from './pricing/estimate.js';
import { TOKEN_TTL_MS } from './token.js';
import { HELD_DECLINED, HELD_EXPIRED, heldRefusedAtSend, RELEASED_UNCONFIRMED } from './wording.js';

const LEASE_MS = 30_000;

export interface ApprovalSenderDeps {
  config: Config;
  jobs: JobStore;
  log: Logger;
  now: () => number;
  /** The sweep's context (catalog, client) for re-pricing. */
  ctx: ToolContext;
  itemSpec: (tool: string) => BillableToolSpec<z.ZodRawShape> | undefined;
  /** Asks the outbox sweep to run now (the unheld items are sent by its claim). */
  kick: () => void;
  holder: string;
  onStep?: ((step: PaidStep) => void) | undefined;
  tokenTtlMs?: number | undefined;
}

export interface ApprovalSender {
  onDecided: OnDecided;
  onExpired: (approval: ApprovalRecord) => Promise<void>;
  /** Held items whose approval is closed (a crash after the decision, a failed hook): finished now. */
  recover: () => Promise<void>;
}

/** What a held (unsent) item counts in spend now: its admitted quote, or the higher figure it was raised to. */
function reservationOf(rec: JobRecord): number {
  return Math.max(rec.estimate?.credits ?? 0, rec.platformEstimate ?? 0);
}

export function approvalSender(deps: ApprovalSenderDeps): ApprovalSender {
  const heldOf = async (a: ApprovalRecord): Promise<JobRecord[]> => {
    const req = a.request as Partial<HeldRequest> | undefined;
    if (!req?.bundleId) return [];
    const ids = new Set(req.itemIds ?? []);
    return (await deps.jobs.bundleItems(req.bundleId)).filter(
      (r) => ids.has(r.id) && r.outcome === 'queued' && r.held?.reason === heldReason(a.id),
    );
  };

  const releaseAll = async (a: ApprovalRecord, reason: string) => {
    for (const rec of await heldOf(a)) await release(deps.jobs, rec, reason);
    deps.log.info('held request released unsent', { approval: a.id, reason });
  };

  /** Re-price, then back for approval, or unhold and send. The caller holds the approval's lease. */
  const approved = async (a: ApprovalRecord) => {
    const items = await heldOf(a);
    if (items.length === 0) return;
    const req = a.request as HeldRequest;
    const priced: Estimate[] = [];
    for (const item of items) {
      const spec = deps.itemSpec(item.tool);
      if (!spec || !item.campaign) return releaseAll(a, heldRefusedAtSend(`unknown tool ${item.tool}`));
      const est = await spec.billable.estimate(item.campaign.input as never, deps.ctx);
      priced.push(finaliseEstimate(deps.config, spec.name, est));
    }
    const total = priced.reduce((s, e) => s + e.credits, 0);
    const bounded = priced.every((e) => e.bounded);
    const approvedQuote = req.estimate;
    if (total > approvedQuote.credits || (approvedQuote.bounded && !bounded)) {
      return backForApproval(a, items, { ...approvedQuote, credits: total, bounded });
    }
    // Reserve, then verify: each item's reservation is raised to its re-priced figure BEFORE the ceilings are
    // judged, so from this moment every admission (under its lock) counts the figure it will be sent at. The quote
    // is fixed at admission (`estimate_credits`), so the raise goes where the spend rule already takes the larger
    // figure: the record's `platformEstimate` (record.ts spendSql), as a platform's higher estimate would. Two held
    // calls re-priced at once each see the other's raise once it is written; one that no longer fits is released,
    // which returns its reservation.
    const reserved = await raiseReservations(items, priced);
    if (!reserved) return releaseAll(a, heldRefusedAtSend('it was released or sent meanwhile'));
    const why = await stillFits(a, reserved, priced);
    if (why) return releaseAll(a, heldRefusedAtSend(why));
    const now = deps.now();
    for (const rec of items) {
      // held → queued: one compare-and-set; a loser (the item was released or unheld meanwhile) sends nothing.
      // Its consent window (`sendBy`, fixed at admission) runs a whole token TTL past the approval's expiry.
      await deps.jobs.claimItem(rec.id, { held: undefined, acknowledgedAt: new Date(now).toISOString() }, 'held');
    }
    deps.log.info('approved request unheld; sending', { approval: a.id, items: items.length, credits: total });
    deps.kick();
  };

  /**
   * Each held item's reservation raised to its re-priced figure when that is higher (compare-and-set from held, so
   * an item released meanwhile is not touched). @returns the items as now stored, or undefined when one was no
   * longer held.
   */
  const raiseReservations = async (items: JobRecord[], priced: Estimate[]): Promise<JobRecord[] | undefined> => {
    const out: JobRecord[] = [];
    for (const [i, rec] of items.entries()) {
      const credits = priced[i]?.credits ?? Number.POSITIVE_INFINITY;
      if (credits <= reservationOf(rec)) {
        out.push(rec);
        continue;
      }
      const raised = await deps.jobs.claimItem(rec.id, { platformEstimate: credits }, 'held');
      if (!raised) return undefined;
      out.push(raised);
    }
    return out;
  };

  /**
   * The requester's ceilings again, on today's facts. The held items are already counted in today's spend (a
   * reservation since their admission): their own credits are taken out of the facts first (when they were
   * admitted today), then the re-priced figures are judged as a new admission would be, so nothing counts twice.
   * A plain read, not the admission's lock: the reservation itself is what keeps parallel calls within the
   * ceilings; this only refuses a call that no longer fits (a lowered ceiling, a new day's budget).
   */
  const stillFits = async (a: ApprovalRecord, items: JobRecord[], priced: Estimate[]) => {
    const rules = {
      ...admitRules(
        { config: deps.config, now: deps.now },
        // The teams the items were admitted under (fixed on their records), not today's membership.
        { owner: a.requester, teams: items[0]?.teams, allowDuplicate: true },
        {
          fingerprint: '',
        },
      ),
      unsettled: undefined,
    };
    const facts = await deps.jobs.readAdmissionFacts(rules);
    // The held items' own reservation within a budget: those admitted since its period began (and, for a team's,
    // under that team).
    const held = (since: Date, team?: string) =>
      items
        .filter((r) => Date.parse(r.createdAt) >= since.getTime() && (team === undefined || r.teams?.includes(team)))
        .reduce((s, r) => s + reservationOf(r), 0);
    const own = held(rules.dayStart);
    const mine = {
      ...facts,
      spentToday: Math.max(0, facts.spentToday - own),
      ...(facts.spentByOwner !== undefined ? { spentByOwner: Math.max(0, facts.spentByOwner - own) } : {}),
      ...(facts.budgetSpent && rules.budgets
        ? {
            budgetSpent: rules.budgets.map((b, i) =>
              Math.max(0, (facts.budgetSpent?.[i] ?? 0) - held(b.since, b.scope === 'team' ? b.name : undefined)),
            ),
          }
        : {}),
    };
    const credits = priced.map((e) => e.credits);
    const judge = (a.request as HeldRequest).kind === 'campaign' ? evaluateCampaignAdmission : evaluateBundleOfOne;
    const refusal = judge(credits, mine, rules);
    return refusal ? (refusalError(a.tool, refusal as never) as Error).message : undefined;
  };

  const backForApproval = async (a: ApprovalRecord, items: JobRecord[], estimate: Estimate) => {
    const req = a.request as HeldRequest;
    const need = approvalNeeded(
      deps.config.approvals,
      {
        requester: a.requester,
        tool: a.tool,
        itemTools: [...new Set(items.map((i) => i.tool))],
        credits: estimate.bounded ? estimate.credits : null,
        daySpendAfter: null,
        requesterGroups: personEntry(deps.config.people, a.requester)?.groups ?? [],
      },
      deps.config.people,
    );
    // The requester consented to the lower figure, and the policy no longer names anyone who could approve the
    // higher one: nobody can agree to it, so it is released.
    if (need?.kind !== 'approval') return releaseAll(a, heldRefusedAtSend('its price rose above the approved quote'));
    const id = newApprovalId();
    const now = deps.now();
    const body =
      req.kind === 'campaign'
        ? {
            items: items.map((i) => ({
              tool: i.tool,
              route: i.campaign!.request.route,
              body: i.campaign!.request.body,
            })),
          }
        : items[0]!.campaign!.request.body;
    const card = consentCard({ tool: a.tool, body, estimate, summary: req.card?.summary ?? a.tool });
    // The items' consent window is fixed at admission (`sendBy`): the new approval must close a whole token TTL
    // before it, so an approval taken at its last moment can still be sent. No time left: released.
    const lastSendBy = Math.min(...items.map((i) => Date.parse(i.campaign!.sendBy)));
    const expiresAt = Math.min(now + need.expiresInMs, lastSendBy - (deps.tokenTtlMs ?? TOKEN_TTL_MS));
    if (expiresAt <= now) return releaseAll(a, heldRefusedAtSend('its price rose and no time is left to approve it'));
    await deps.jobs.createApproval({
      id,
      requester: a.requester,
      requesterName: a.requesterName,
      tool: a.tool,
      request: { ...req, estimate, card, repricedFrom: a.id } satisfies HeldRequest & { repricedFrom: string },
      requirements: need.requirements,
      approvers: need.approvers,
      rules: need.rules,
      ...(a.campaignId ? { campaignId: a.campaignId } : {}),
      quoteCredits: estimate.bounded ? estimate.credits : null,
      createdAt: now,
      expiresAt,
    });
    const since = new Date(now).toISOString();
    // Re-tagged to the new approval (still held). The reservation stays at the admitted quote until the new
    // figure is approved: then it is raised to it before the ceilings are judged (`raiseReservations`).
    for (const rec of items) await deps.jobs.claimItem(rec.id, { held: { since, reason: heldReason(id) } }, 'held');
    deps.log.info('approved request re-priced higher; back for approval', {
      approval: a.id,
      next: id,
      credits: estimate.credits,
    });
  };

  const leased = async (a: ApprovalRecord, act: () => Promise<void>) => {
    if (!(await deps.jobs.tryLease(`approval:${a.id}`, LEASE_MS, deps.holder))) return;
    await act();
  };

  const onDecided: OnDecided = async (a, outcome) => {
    deps.onStep?.('after_approval');
    if (outcome.state === 'approved') await leased(a, () => approved(a));
    else await leased(a, () => releaseAll(a, HELD_DECLINED));
  };

  return {
    onDecided,
    onExpired: (a) => leased(a, () => releaseAll(a, HELD_EXPIRED)),
    async recover() {
      const seen = new Set<string>();
      for (const bundle of await deps.jobs.queuedBundles()) {
        for (const item of await deps.jobs.bundleItems(bundle)) {
          const reason = item.outcome === 'queued' ? item.held?.reason : undefined;
          if (!reason?.startsWith('approval:') || seen.has(reason)) continue;
          seen.add(reason);
          const a = await deps.jobs.approval(reason.slice('approval:'.length));
          if (!a) {
            // Admitted held, but its approval was never written (the process stopped in between): nobody can
            // ever approve it, and its requester was answered nothing. Released after the admission's grace.
            if (Date.parse(item.createdAt) + UNACKNOWLEDGED_GRACE_MS <= deps.now()) {
              for (const rec of await deps.jobs.bundleItems(bundle)) {
                if (rec.outcome === 'queued' && rec.held?.reason === reason) {
                  await release(deps.jobs, rec, RELEASED_UNCONFIRMED);
                }
              }
            }
            continue;
          }
          if (a.state === 'pending') continue;
          if (a.state === 'approved') await leased(a, () => approved(a));
          else await leased(a, () => releaseAll(a, a.state === 'declined' ? HELD_DECLINED : HELD_EXPIRED));
        }
      }
    },
  };
}
