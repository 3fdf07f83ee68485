/**
 * Issue 29 item 4, through a real client in both eras: a campaign's consent, sized for a chat. The summary
 * (src/paid/chat-summary.ts) is built from the consent card, and says the same thing: the same total and bound,
 * every varying field with every value, every other field with its one value, and the same binding (its request
 * ref is the start of the fingerprint the confirmation token is bound to, and the token confirms exactly the card's
 * items). It opens the consent form's message (the full card follows) and the token flow's next step.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatSummary, chatConsentSummary, MAX_SUMMARY_LINES } from '../../src/paid/chat-summary.js';
import { type ConsentCard, cardText } from '../../src/paid/consent-card.js';
import { canonicalJson, fingerprint } from '../../src/paid/fingerprint.js';
import { verifyToken } from '../../src/paid/token.js';
import { type Harness, startHarness, structured } from '../helpers/harness.js';

const SCRIPTS = [
  'Meet the bottle that keeps coffee hot all day, from the first train to the last meeting.',
  'Your coffee, still hot at five pm.',
  'Cold hands, hot coffee: the bottle for winter mornings on the platform.',
];
/** 2 avatars × 3 scripts, one voice: the "6 talking videos". */
const CAMPAIGN = {
  items: [{ tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_id: 'voice_en_rachel' } }],
  vary: { avatar_id: ['av_ava', 'av_marcus'], voice_script: SCRIPTS },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The card's items: `items[i].<field>` → value, per item (route and body fields; `tool` apart). */
function cardItems(card: ConsentCard): { tool: string; fields: Record<string, string> }[] {
  const out: { tool: string; fields: Record<string, string> }[] = [];
  for (const f of card.fields) {
    const m = /^items\[(\d+)\]\.(tool|route|body\.(.+))$/.exec(f.name);
    expect(m, f.name).not.toBeNull();
    out[Number(m![1])] ??= { tool: '', fields: {} };
    const item = out[Number(m![1])]!;
    if (m![2] === 'tool') item.tool = f.value;
    else item.fields[m![3] ?? 'route'] = f.value;
  }
  return out;
}

/** What the summary claims, checked against the card field by field. */
function sameFacts(summary: ChatSummary, card: ConsentCard): void {
  expect(summary.credits).toBe(card.credits);
  expect(summary.bounded).toBe(card.bounded);
  expect(summary.price).toBe(card.price);
  expect(summary.text).toContain(card.price);
  expect(summary.lines.length).toBeLessThanOrEqual(MAX_SUMMARY_LINES);
  const items = cardItems(card);
  expect(summary.count).toBe(items.length);
  expect(summary.tools).toEqual([{ tool: 'create_talking_video', count: items.length }]);
  const names = new Set(items.flatMap((i) => Object.keys(i.fields)));
  // Every field of the card is in the summary: varying with all its values, or the same in every item.
  expect(new Set([...summary.varying.map((f) => f.name), ...summary.same.map((f) => f.name)])).toEqual(names);
  for (const f of summary.varying) {
    expect(new Set(f.values)).toEqual(new Set(items.map((i) => i.fields[f.name])));
    expect(f.values.length).toBeGreaterThan(1);
  }
  for (const f of summary.same) for (const i of items) expect(i.fields[f.name]).toBe(f.value);
}

describe('a campaign consent sized for a chat (issue 29 item 4)', () => {
  it('the token flow: the next step carries the summary; it and the card describe the same request', async () => {
    h = await startHarness({ config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 } });
    const r = await h.call('create_campaign', CAMPAIGN, { raw: true });
    const env = structured(r) as { status: string; confirmation_token: string; next_step: string; estimate: never };
    expect(env.status).toBe('confirmation_required');
    const card = (r._meta!['genplat/confirm'] as { card: ConsentCard }).card;
    expect(card.credits).toBe((env.estimate as { credits: number }).credits);

    // The binding: the token's fingerprint (what it is bound to) is the summary's.
    const claims = JSON.parse(Buffer.from(env.confirmation_token.split('.')[0]!, 'base64url').toString()) as {
      fingerprint: string;
    };
    const summary = chatConsentSummary(card, {
      fingerprint: claims.fingerprint,
      fullCard: [{ at: 'app' }, { at: 'request' }],
    });
    sameFacts(summary, card);
    expect(summary.crossProduct).toBe(true);
    expect(summary.varying.map((f) => f.name)).toEqual(['avatar_id', 'voice_script']);
    expect(summary.same.find((f) => f.name === 'voice_id')?.value).toBe('voice_en_rachel');
    expect(summary.text).toContain('Varies (6 combinations): avatar_id av_ava, av_marcus × voice_script 1-3');
    expect(summary.text).toContain(`Request ref ${claims.fingerprint.slice(0, 12)}`);
    // The model is told to show exactly this summary, in ≤ 10 lines, not the 30-line card.
    expect(env.next_step).toContain(summary.text);
    expect(cardText(card).split('\n').length).toBeGreaterThan(30);
    const key = await h.jobs.consentKey();
    const expected = {
      tool: 'create_campaign',
      fingerprint: claims.fingerprint,
      credits: card.credits,
      owner: undefined,
    };
    expect(verifyToken(key, env.confirmation_token, { ...expected, allowDuplicate: false }, Date.now()).ok).toBe(true);

    // Confirmed: the POSTs are the card's items exactly, and their fingerprint is the one the summary names.
    const done = structured(
      await h.call('create_campaign', { ...CAMPAIGN, confirmation_token: env.confirmation_token }),
    );
    expect(done.handle).toMatch(/^campaign:/);
    const items = cardItems(card);
    for (let i = 0; i < 500 && h.sim.log.count({ method: 'POST' }) < items.length; i++) {
      await new Promise((res) => setTimeout(res, 20));
    }
    const posted = h.sim.log.entries().filter((e) => e.method === 'POST');
    expect(posted).toHaveLength(items.length);
    const asFields = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const rebuilt = items.map((item) => {
      const { route, ...fields } = item.fields;
      const sent = posted.find((p) => canonicalJson(asFields(p.body as never)) === canonicalJson(fields));
      expect(sent, JSON.stringify(fields)).toBeDefined();
      return { tool: item.tool, route: route!, body: sent!.body };
    });
    expect(fingerprint('create_campaign', { route: 'campaign', body: { items: rebuilt } })).toBe(claims.fingerprint);
  });

  it('the consent form opens with the summary, the full card below it', async () => {
    const asked: string[] = [];
    h = await startHarness({
      config: { confirm: { mode: 'always' }, maxCreditsPerDay: 10_000 },
      onElicit: async (req) => {
        asked.push(req.params.message);
        return { action: 'decline' };
      },
    });
    const r = await h.call('create_campaign', CAMPAIGN, { raw: true });
    expect(structured(r).status).toBe('declined');
    expect(h.sim.log.count({ method: 'POST' })).toBe(0);
    expect(asked).toHaveLength(1);
    const [head, full] = asked[0]!.split('\n— Full card —\n');
    const lines = head!.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_SUMMARY_LINES);
    expect(lines[0]).toBe('create_campaign: 6 items: 6 × create_talking_video.');
    expect(head).toContain('Full card (every field, in full): below this summary.');
    // Below it, the whole card: every field of every item, the scripts whole.
    for (const s of SCRIPTS) expect(full).toContain(s);
    expect(full).toMatch(/^create_campaign: campaign of 6 items/);
  });

  it('a short single call keeps its card as it was (no summary)', async () => {
    const asked: string[] = [];
    h = await startHarness({
      config: { confirm: { mode: 'always' } },
      onElicit: async (req) => {
        asked.push(req.params.message);
        return { action: 'decline' };
      },
    });
    await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: SCRIPTS[1] }, { raw: true });
    expect(asked[0]).not.toContain('— Full card —');
    expect(asked[0]).toMatch(/^create_talking_video: /);
  });
});
