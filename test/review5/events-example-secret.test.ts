/**
 * Review 5, finding 3 (low): docs/events.md shows a complete, valid `whsec_` secret (the Standard Webhooks
 * README's public example). An operator who copies the example verbatim gets a secret anyone can sign with, and the
 * server accepts it: a forged "job.completed" or "approval.decided" then passes the bot's signature check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadEventsConfig } from '../../src/events/config.js';

// The Standard Webhooks README's example secret, once printed in docs/events.md as if it were one to use.
const PUBLISHED = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('review5: a published example secret is refused', () => {
  it('GENPLAT_EVENTS_SECRET set to the Standard Webhooks README example is a problem naming the field', () => {
    const problems: string[] = [];
    loadEventsConfig(
      { GENPLAT_EVENTS_URL: 'https://bot.example/events', GENPLAT_EVENTS_SECRET: PUBLISHED },
      (p) => p,
      problems,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('GENPLAT_EVENTS_SECRET');
  });

  it('docs/events.md prints no secret a reader could copy', () => {
    const docs = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    expect(/whsec_[A-Za-z0-9+/]{20,}={0,2}/.exec(docs)?.[0]).toBeUndefined();
  });
});
