import { defineResourceTemplate, variable } from '../src/define-resource.js';
import { heldEnvelope, nameOfPeople } from '../src/jobs/approval-view.js';
import { CAMPAIGN_HANDLE_PREFIX, campaignEnvelope, readCampaignRecords } from '../src/jobs/campaign-view.js';

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
    read: async (deps, _uri, vars) => {
      const id = decodeURIComponent(variable(vars, 'id') ?? '');
      const handle = `${CAMPAIGN_HANDLE_PREFIX}${id}`;
      const { view, records } = await readCampaignRecords(deps.jobs, deps.poller, handle, deps.owner, 'id');
      // Held for an approval (issue 28 item 5): "waiting for approval by …", as get_job says it.
      const held = await heldEnvelope({ ...deps, nameOf: nameOfPeople(deps.config) }, records, handle, 'campaign');
      return held ?? campaignEnvelope(view);
    },
  }),
];
