/**
 * Issue 29 item 4, the summary's own rules (src/paid/chat-summary.ts) on cards too big for the lines it has: at most
 * 10 lines of at most 290 characters, whatever does not fit counted ("… and N more (in the full card)"), every
 * value it names taken from the card; a short card is not summarised.
 */
import { describe, expect, it } from 'vitest';
import { estimate } from '../../../src/jobs/envelope.js';
import {
  chatConsentSummary,
  LONG_CARD_FIELDS,
  MAX_LINE,
  MAX_SUMMARY_LINES,
  needsChatSummary,
} from '../../../src/paid/chat-summary.js';
import { consentCard } from '../../../src/paid/consent-card.js';

const within = (lines: string[]) => {
  expect(lines.length).toBeLessThanOrEqual(MAX_SUMMARY_LINES);
  for (const l of lines) expect(l.length).toBeLessThanOrEqual(MAX_LINE);
};

describe('the chat summary within its lines', () => {
  it('a single request of 80 fields: 10 lines, the rest counted, the card untouched', () => {
    const params = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`setting_${i}`, `value number ${i}`]));
    const card = consentCard({
      tool: 'run_model',
      body: { model: 'm', params },
      estimate: estimate(60, 'x'),
      summary: 'run m',
    });
    expect(needsChatSummary(card)).toBe(true);
    const s = chatConsentSummary(card);
    within(s.lines);
    expect(s.count).toBe(1);
    expect(s.same).toHaveLength(81);
    const shown = s.text.match(/params\.setting_\d+ value number \d+/g) ?? [];
    const more = Number(/… and (\d+) more \(in the full card\)/.exec(s.text)?.[1]);
    // Every field is either on a line or counted in the "more".
    expect(shown.length + 1 + more).toBe(81);
    expect(s.lines.at(-1)).toBe('Full card (every field, in full): ask, and every field of this call is listed.');
  });

  it('a campaign of 12 long scripts: previews while lines are left, the others counted', () => {
    const items = Array.from({ length: 12 }, (_, i) => ({
      tool: 'create_talking_video',
      route: '/video/generate',
      body: { avatar_id: 'av_ava', voice_script: `Script ${i}: ${'a long line that is read aloud. '.repeat(4)}` },
    }));
    const card = consentCard({
      tool: 'create_campaign',
      body: { items },
      estimate: estimate(1200, 'sum'),
      summary: 'campaign of 12 items (create_talking_video)',
    });
    const s = chatConsentSummary(card, {
      fingerprint: 'f'.repeat(64),
      fullCard: [{ at: 'page', url: 'https://x.test/approve/1' }],
    });
    within(s.lines);
    expect(s.varying).toEqual([{ name: 'voice_script', values: items.map((i) => i.body.voice_script) }]);
    expect(s.text).toContain('Varies between items: voice_script 1-12');
    const previews = s.lines.filter((l) => l.startsWith('  voice_script '));
    const more = Number(/… and (\d+) more \(in the full card\)/.exec(s.text)?.[1]);
    expect(previews.length + more).toBe(12);
    expect(s.text).toContain('the approval page https://x.test/approve/1');
    expect(s.text).toContain(`Request ref ${'f'.repeat(12)}`);
  });

  it(`a call of at most ${LONG_CARD_FIELDS} fields is not summarised`, () => {
    const card = consentCard({
      tool: 'create_talking_video',
      body: { avatar_id: 'av_ava', voice_script: 'Hi.' },
      estimate: estimate(100, 'x'),
      summary: 'talking video',
    });
    expect(needsChatSummary(card)).toBe(false);
  });
});
