/**
 * ALL_RESOURCES and the hook that registers them. Registration is data-driven: a new resource file exports
 * an array of specs and gets one spread line here (sorted by file).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { type ResourceDeps, type ResourceSpec, registerResource } from '../src/define-resource.js';
import { installSubscriptions } from '../src/protocol/subscriptions.js';
import avatars from './avatars.js';
import campaigns from './campaigns.js';
import jobs from './jobs.js';
import models from './models.js';
import shoppable from './shoppable.js';
import spend from './spend.js';
import templateCategories from './template-categories.js';
import templates from './templates.js';
import voices from './voices.js';

export type { ResourceDeps, ResourceSpec };

export const ALL_RESOURCES: ResourceSpec[] = [
  ...avatars,
  ...campaigns,
  ...jobs,
  ...models,
  ...shoppable,
  ...spend,
  ...templateCategories,
  ...templates,
  ...voices,
];

/**
 * Registers `resources` on `server` (before connect; see mcp-notes 2.1 on capabilities) and the
 * `resources/subscribe` handlers for job resources (idempotent, so `buildServer` may also call
 * `installSubscriptions` itself).
 * @throws Error when two specs share a name or URI (the SDK refuses duplicates).
 */
export function registerResources(
  server: McpServer,
  resources: ResourceSpec[],
  deps: ResourceDeps,
  opts: { subscriptions: boolean; follow?: () => () => void } = { subscriptions: true },
): void {
  for (const spec of resources) registerResource(server, spec, deps);
  if (opts.subscriptions) {
    const follow = opts.follow ? { follow: opts.follow } : {};
    installSubscriptions(server, { poller: deps.poller, log: deps.log, jobs: deps.jobs, owner: deps.owner, ...follow });
  }
}
