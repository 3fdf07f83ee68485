import { defineResource, defineResourceTemplate, variable } from '../src/define-resource.js';
import { UserInputError } from '../src/errors.js';
import { budgetStatus, spendToday } from '../src/jobs/spend.js';
import { readsEveryone } from '../src/report/readers.js';
import { parseSelection, REPORT_BY } from '../src/report/selection.js';

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
  defineResourceTemplate({
    name: 'spend-report',
    uriTemplate: 'genplat://spend/report{?by,since,until}',
    title: 'Spend report',
    description:
      "Paid calls from the audit grouped by person, team, tool, day, week or month (UTC): calls, quoted, charged, refunded and counted credits. Over HTTP, your own calls only (report readers: everyone's).",
    list: async () => [{ uri: 'genplat://spend/report', name: 'Spend report by person' }],
    complete: { by: async () => [...REPORT_BY] },
    read: async ({ config, jobs, owner, person }, _uri, vars) => {
      const problems: { field: string; rule: string }[] = [];
      const selection = parseSelection(
        { by: variable(vars, 'by'), since: variable(vars, 'since'), until: variable(vars, 'until') },
        problems,
      );
      if (problems[0]) throw new UserInputError(problems[0].field, problems[0].rule);
      // Whose calls: an HTTP caller's own only, as genplat://spend and list_jobs scope them, unless the operator
      // named them a report reader (GENPLAT_REPORT_READERS: by verified id or group); stdio is the operator's own
      // machine and store, as `genplat-mcp report` (every caller).
      const everyone = owner === undefined || readsEveryone(config.reportReaders, owner, person?.groups);
      const events = await jobs.auditEvents({ since: selection.since, owner: everyone ? undefined : owner });
      // Loaded on the first read, not at start: a host's connect-time listing never needs the report's code
      // (the bench's memory after listing).
      const [{ recordedNames }, { spendReport, TEAM_NOTE }] = await Promise.all([
        import('../src/report/recorded-names.js'),
        import('../src/report/spend-report.js'),
      ]);
      const names = await recordedNames(events, config.people, (id) => jobs.get(id));
      const report = spendReport(events, selection, config.people, names);
      return {
        scope: everyone ? 'every caller' : 'your calls',
        ...report,
        ...(report.by === 'team' ? { note: TEAM_NOTE } : {}),
      };
    },
  }),
];
