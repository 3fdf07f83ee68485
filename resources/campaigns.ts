import { defineResourceTemplate, variable } from '../src/define-resource.js';
import { CAMPAIGN_HANDLE_PREFIX, campaignEnvelope, readCampaign } from '../src/jobs/campaign-view.js';

/**
 * A campaign (issue 21): the same envelope get_job gives for `campaign:<id>` (progress, per-item status,
 * outputs, charges in `details.campaign`). Read live through the shared poller. Subscriptions: 2025
 * resources/subscribe in src/protocol/campaign-subscription.ts; 2026 listen streams fed from src/transports/http-main.ts.
 */
export default [
  defineResourceTemplate({
    name: 'campaign',
    uriTemplate: 'genplat://campaigns/{id}',
    title: 'Campaign',
    description: 'One campaign (create_campaign): k of N done, each item with status, outputs and charges.',
    read: async ({ poller, jobs, owner }, _uri, vars) => {
      const id = decodeURIComponent(variable(vars, 'id') ?? '');
      return campaignEnvelope(await readCampaign(jobs, poller, `${CAMPAIGN_HANDLE_PREFIX}${id}`, owner, 'id'));
    },
  }),
];
