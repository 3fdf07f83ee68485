/**
 * Review 5, finding 3 (low): docs/events.md shows a complete, valid `whsec_` secret (the Standard Webhooks
 * README's public example). An operator who copies the example verbatim gets a secret anyone can sign with, and the
 * server accepts it: a forged "job.completed" or "approval.decided" then passes the bot's signature check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadEventsConfig } from '../../src/events/config.js';

describe('review5: the documented example secret is refused', () => {
  it('GENPLAT_EVENTS_SECRET set to the secret printed in docs/events.md is a problem', () => {
    const docs = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    const example = /whsec_[A-Za-z0-9+/]{20,}={0,2}/.exec(docs)?.[0];
    expect(example).toBeDefined();
    const problems: string[] = [];
    loadEventsConfig(
      { GENPLAT_EVENTS_URL: 'https://bot.example/events', GENPLAT_EVENTS_SECRET: example },
      (p) => p,
      problems,
    );
    expect(problems).toHaveLength(1);
  });
});
