/**
 * What a change the shared poller saw becomes on the 2026 listen streams (every instance, through the event bus):
 * `notifications/resources/updated` for the job's URI and, for a campaign item, its campaign's URI, each with a
 * progress note in `_meta['io.genplat/progress']` (`{status, done, total, message}`: "k of N done" for a campaign,
 * as single jobs say their status), so a listener knows what moved without reading the resource. The listen bus
 * checks owners (listen-owner.ts).
 */
import type { ServerEvent } from '@modelcontextprotocol/server';
import { campaignIdOfUri, campaignUriOfJob } from '../jobs/campaign-uri.js';
import { campaignEnvelope, campaignFromRecords } from '../jobs/campaign-view.js';
import type { PollerChange } from '../jobs/poller.js';
import { campaignNote, jobNote, PROGRESS_META_KEY } from '../jobs/progress.js';
import type { JobStore } from '../jobs/store.js';
import type { Logger } from '../log.js';

/** The job resource template's prefix (resources/): `genplat://jobs/{handle}`. */
const JOB_URI_PREFIX = 'genplat://jobs/';

const withNote = (uri: string, note: object): ServerEvent => ({
  kind: 'resource_updated',
  uri,
  params: { _meta: { [PROGRESS_META_KEY]: note } },
});

/**
 * The listener to hang on `poller.onChange`. A job's first read here is no news (it may have been read elsewhere
 * long ago), unless it is already final.
 */
export function changePublisher(
  jobs: Pick<JobStore, 'getByRef' | 'bundleItems'>,
  publish: (event: ServerEvent) => void,
  log: Pick<Logger, 'debug'>,
): (change: PollerChange) => void {
  return (change) => {
    if (change.previous === undefined && change.view.status === 'processing') return;
    publish(withNote(`${JOB_URI_PREFIX}${change.handle}`, jobNote(change.view.status)));
    campaignUriOfJob(jobs, change.handle)
      .then(async (uri) => {
        const id = uri && campaignIdOfUri(uri);
        if (!uri || !id) return;
        const view = campaignFromRecords(id, await jobs.bundleItems(id));
        publish(withNote(uri, campaignNote(view, campaignEnvelope(view).status)));
      })
      .catch((err) => log.debug('campaign of a changed job not found', { error: String(err) }));
  };
}
