import { defineResource } from '../src/define-resource.js';
import { budgetStatus, spendToday } from '../src/jobs/spend.js';

export default [
  defineResource({
    name: 'spend',
    uri: 'genplat://spend',
    title: 'Spend and budgets',
    description:
      "Today's spend (UTC) from the job ledger against the per-day and per-call ceilings, your own daily budget (HTTP callers), every budget that applies to you (account, you, your teams × day, week, month) with what is left, and the confirmation policy.",
    read: async ({ config, jobs, owner, person }) => ({
      ...(await spendToday(config, jobs, owner)),
      budgets: await budgetStatus(config, jobs, { owner, teams: person?.groups }),
    }),
  }),
];
