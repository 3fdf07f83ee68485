import { defineResource } from '../src/define-resource.js';
import { spendToday } from '../src/jobs/spend.js';

export default [
  defineResource({
    name: 'spend',
    uri: 'genplat://spend',
    title: 'Spend and budgets',
    description:
      "Today's spend (UTC) from the job ledger against the per-day and per-call ceilings, your own daily budget (HTTP callers), and the confirmation policy.",
    read: async ({ config, jobs, owner }) => spendToday(config, jobs, owner),
  }),
];
