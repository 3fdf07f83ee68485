/**
 * Which events a store transition causes, and their bodies (the wire contract, docs/events.md). Pure: both
 * stores call these inside the transaction that makes the change, with what it read under its lock, and insert
 * what they return (`ON CONFLICT (dedupe) DO NOTHING`: a transition is one event whoever writes it).
 */
import { randomUUID } from 'node:crypto';
import type { JobRecord, NewJobRecord } from '../jobs/store.js';
import type { NewApprovalRecord } from './approval-types.js';
import type { BudgetThresholdData, EventBody, EventType, NewEvent } from './event-types.js';
import type { AdmissionFacts, AdmitRules, BudgetPeriod } from './types.js';

export const eventId = () => `evt_${randomUUID()}`;

/** Day-limit thresholds announced once per period (percent of the limit). */
export const BUDGET_THRESHOLDS = [80, 100] as const;

function event(
  type: EventType,
  subject: string,
  state: string,
  owner: string | undefined,
  at: number,
  data: Record<string, unknown>,
): NewEvent {
  const body: EventBody = { type, timestamp: new Date(at).toISOString(), data };
  return { id: eventId(), dedupe: `${subject}|${type}|${state}`, subject, type, owner, at, body };
}

/** The common fields of every `data`: owner, person, bot (a delegating credential `token:<bot>:<id>`). */
export function personFields(
  owner: string | undefined,
  name?: string | undefined,
  email?: string | undefined,
): Record<string, unknown> {
  if (owner === undefined) return { owner: 'stdio' };
  const person: Record<string, string> = { id: owner };
  if (name) person.name = name;
  if (email) person.email = email;
  const bot = /^token:([^:]+):.+$/.exec(owner)?.[1];
  return { owner, person, ...(bot ? { bot } : {}) };
}

const isFinal = (r: Pick<JobRecord, 'status' | 'outcome'>) =>
  r.status === 'completed' || r.status === 'failed' || r.outcome === 'rejected';

/** Our own job (not one followed by raw id, which cost nothing here and is not ours to announce). */
const announced = (r: JobRecord) => r.tool !== 'external';

const campaignHandle = (r: JobRecord) => (r.campaign ? `campaign:${r.campaign.id}` : undefined);

function outputKind(media: string): string {
  return media === 'video' || media === 'image' || media === 'audio' ? media : 'other';
}

/** job.submitted / job.completed / job.failed for one record's change `before` → `after`. */
export function jobEvents(before: JobRecord, after: JobRecord, at: number): NewEvent[] {
  if (!announced(after)) return [];
  const out: NewEvent[] = [];
  const common = {
    ...personFields(after.owner, after.ownerName, after.ownerEmail),
    handle: after.handle,
    tool: after.tool,
    ...(after.campaign ? { campaign: campaignHandle(after) } : {}),
  };
  if (before.outcome !== 'submitted' && after.outcome === 'submitted') {
    const credits = after.estimate?.bounded === false ? null : (after.estimate?.credits ?? null);
    out.push(event('job.submitted', after.id, 'submitted', after.owner, at, { ...common, credits }));
  }
  const sent = after.outcome === 'submitted' || (after.outcome === 'rejected' && before.outcome === 'pending');
  if (sent && !isFinal(before) && isFinal(after)) {
    const charged = after.creditsCharged ?? null;
    if (after.status === 'completed') {
      out.push(
        event('job.completed', after.id, 'completed', after.owner, at, {
          ...common,
          charged,
          outputs: after.outputs.map((o) => ({ url: o.url, kind: outputKind(o.media) })),
        }),
      );
    } else {
      out.push(
        event('job.failed', after.id, 'failed', after.owner, at, {
          ...common,
          reason: after.reason ?? (after.outcome === 'rejected' ? 'the platform refused the request' : 'failed'),
          charged,
          ...(after.creditsRefunded !== undefined ? { refunded: after.creditsRefunded } : {}),
        }),
      );
    }
  }
  return out;
}

/** True when `after` is a campaign item that just became final: the store then reads the campaign's items. */
export function endsCampaignItem(before: JobRecord, after: JobRecord): boolean {
  return after.campaign !== undefined && !isFinal(before) && isFinal(after);
}

/** campaign.progress (k of N) and, once every item is final, campaign.completed; from the items read in the tx. */
export function campaignEvents(item: JobRecord, items: readonly JobRecord[], at: number): NewEvent[] {
  const c = item.campaign;
  if (!c) return [];
  const subject = `campaign:${c.id}`;
  const total = c.total;
  const done = items.filter((i) => i.status === 'completed').length;
  const failed = items.filter((i) => i.status !== 'completed' && isFinal(i)).length;
  const charges = items.map((i) => i.creditsCharged).filter((n): n is number => n !== undefined);
  const charged = charges.length ? charges.reduce((a, b) => a + b, 0) : null;
  const who = personFields(item.owner, item.ownerName, item.ownerEmail);
  const out = [
    event('campaign.progress', subject, `${done}+${failed}`, item.owner, at, {
      ...who,
      campaign: subject,
      done,
      total,
      failed,
      message: `${done} of ${total} done`,
    }),
  ];
  if (done + failed >= total) {
    out.push(
      event('campaign.completed', subject, 'completed', item.owner, at, {
        ...who,
        campaign: subject,
        total,
        completed: done,
        failed,
        charged,
      }),
    );
  }
  return out;
}

/** What an approval holds, read defensively from its opaque request (src/paid/hold.ts `HeldRequest`). */
function heldHandle(a: NewApprovalRecord): string {
  const req = (a.request ?? {}) as { kind?: unknown; bundleId?: unknown; itemIds?: unknown };
  if (a.campaignId) return `campaign:${a.campaignId}`;
  const first = Array.isArray(req.itemIds) ? req.itemIds[0] : undefined;
  return typeof first === 'string' ? `submission:${first}` : `approval:${a.id}`;
}

function heldSummary(a: NewApprovalRecord): string {
  const card = ((a.request ?? {}) as { card?: { summary?: unknown } }).card;
  return typeof card?.summary === 'string' ? card.summary : a.tool;
}

export function approvalRequested(a: NewApprovalRecord): NewEvent {
  const subject = `approval:${a.id}`;
  return event('approval.requested', subject, 'requested', a.requester, a.createdAt, {
    ...personFields(a.requester, a.requesterName),
    approval: subject,
    handle: heldHandle(a),
    credits: a.quoteCredits ?? null,
    summary: heldSummary(a),
    approvers: [...a.approvers],
    expiresAt: new Date(a.expiresAt).toISOString(),
  });
}

export function approvalDecided(
  a: NewApprovalRecord,
  decision: 'approved' | 'declined' | 'expired',
  at: number,
  decidedBy?: string,
): NewEvent {
  const subject = `approval:${a.id}`;
  return event('approval.decided', subject, 'decided', a.requester, at, {
    ...personFields(a.requester, a.requesterName),
    approval: subject,
    handle: heldHandle(a),
    decision,
    ...(decidedBy ? { decidedBy } : {}),
  });
}

/**
 * budget.threshold for an admission that brought the spend from `before` to `after` against `limit`: each
 * threshold at or under `after`, once per period (the dedupe key carries the period's start), also when a later
 * admission is the first to see it crossed. The day budgets of the account and the person keep their first
 * subjects (`budget:account`, `budget:person:<owner>`); every other budget has its own
 * (`budget:<scope>[:<name>]:<period>`), so deliveries are ordered per budget.
 */
export function budgetEvents(
  scope:
    | { kind: 'account' }
    | { kind: 'person'; owner: string; name?: string | undefined; email?: string | undefined }
    | { kind: 'team'; team: string },
  limit: number,
  after: number,
  since: Date,
  at: number,
  period: BudgetPeriod = 'day',
): NewEvent[] {
  if (!(limit > 0) || !Number.isFinite(limit)) return [];
  const start = since.toISOString().slice(0, 10);
  const base =
    scope.kind === 'account'
      ? 'budget:account'
      : scope.kind === 'person'
        ? `budget:person:${scope.owner}`
        : `budget:team:${scope.team}`;
  const subject = period === 'day' && scope.kind !== 'team' ? base : `${base}:${period}`;
  // The day budgets' state stays `<date>|<percent>` (their dedupe keys from before week and month existed).
  const state = period === 'day' ? start : `${period}:${start}`;
  const owner = scope.kind === 'person' ? scope.owner : undefined;
  return BUDGET_THRESHOLDS.filter((p) => after >= (limit * p) / 100).map((percent) => {
    const data: BudgetThresholdData = {
      scope: scope.kind,
      ...(scope.kind === 'person' ? { owner: scope.owner, name: scope.owner } : {}),
      ...(scope.kind === 'team' ? { name: scope.team } : {}),
      percent,
      period,
      since: since.toISOString(),
      limit,
      spent: after,
    };
    const who = scope.kind === 'person' ? personFields(scope.owner, scope.name, scope.email) : {};
    return event('budget.threshold', subject, `${state}|${percent}`, owner, at, { ...who, ...data });
  });
}

/**
 * budget.threshold events of an admission, from the facts read under lock: the account's day, the person's day,
 * then every budget of `rules.budgets` (account, person, teams × day, week, month).
 */
export function admissionEvents(
  items: readonly NewJobRecord[],
  facts: AdmissionFacts,
  rules: AdmitRules,
  at: number,
): NewEvent[] {
  const credits = items.reduce((sum, i) => sum + (i.estimate?.credits ?? 0), 0);
  const out = budgetEvents({ kind: 'account' }, rules.maxCreditsPerDay, facts.spentToday + credits, rules.dayStart, at);
  const first = items[0];
  const person = (owner: string) =>
    ({ kind: 'person', owner, name: first?.ownerName, email: first?.ownerEmail }) as const;
  if (rules.user && facts.spentByOwner !== undefined) {
    out.push(
      ...budgetEvents(
        person(rules.user.owner),
        rules.user.maxCreditsPerDay,
        facts.spentByOwner + credits,
        rules.dayStart,
        at,
      ),
    );
  }
  for (const [i, b] of (rules.budgets ?? []).entries()) {
    const spent = facts.budgetSpent?.[i];
    if (spent === undefined) continue;
    const scope =
      b.scope === 'account'
        ? ({ kind: 'account' } as const)
        : b.scope === 'person'
          ? person(b.name ?? '')
          : ({ kind: 'team', team: b.name ?? '' } as const);
    out.push(...budgetEvents(scope, b.limit, spent + credits, b.since, at, b.period));
  }
  return out;
}
