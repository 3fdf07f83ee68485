/**
 * The `overcharge` fault: the platform charges more than its published price. The issue-9 review found real
 * calls charged up to 21 times the quote; this lets the sandbox (and the reconciliation tests) show what the
 * server does then. The handler runs as usual, but every charge it makes is `credits` instead of its price:
 * the account balance, the job's recorded charge (so status reads such as the upscale attempt's and the
 * gesture's `credits_charged` report it) and the figures in the submit answer (`credits_charged`,
 * `estimated_credits`) all say `credits`.
 */
import type { SimContext } from './types.js';

/** The context a handler sees under the fault: same state, every charge replaced by `credits`. */
export function overchargeContext(base: SimContext, credits: number): SimContext {
  const jobs = base.jobs;
  return {
    ...base,
    charge: (account, _price, insufficientStatus) => base.charge(account, credits, insufficientStatus),
    jobs: {
      create: (init) => jobs.create({ ...init, creditsCharged: credits }),
      get: (kind, id, account) => jobs.get(kind, id, account),
      state: (job) => jobs.state(job),
      all: () => jobs.all(),
    },
  };
}

const CHARGE_FIELDS = ['credits_charged', 'estimated_credits'] as const;

/** Rewrites the charge figures of a submit answer (envelope `data` or a flat body) in place. */
export function overchargeAnswer(body: unknown, credits: number): void {
  if (!body || typeof body !== 'object') return;
  const b = body as Record<string, unknown>;
  const data = b.data && typeof b.data === 'object' ? (b.data as Record<string, unknown>) : undefined;
  for (const target of [b, data]) {
    if (!target) continue;
    for (const f of CHARGE_FIELDS) if (typeof target[f] === 'number') target[f] = credits;
  }
}
