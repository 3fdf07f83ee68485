/**
 * Slack Block Kit for tool results (issue 29 item 3): what a client that declared `io.slack/block-kit` renders
 * from a result's `_meta.slack.blocks` (src/protocol/slack-block-kit.ts decides who gets them). Built from the
 * result the model also gets (the job envelope, wait_for_jobs' envelopes, list_jobs' rows) and, for a quote, the
 * consent card: the chat summary (src/paid/chat-summary.ts), "waiting for approval by …", "k of N done", and
 * finished outputs as image and video blocks with their title and cost.
 *
 * Within Block Kit's limits, enforced here once (`fitBlocks`): at most 50 blocks (what does not fit is counted in
 * a last "… and N more" block), a text at most 3,000 characters (a header's 150, a video title's 200, alt text
 * 2,000), every block with its required fields. A video block needs a thumbnail, which the platform does not
 * give: a video plays in a block only when its job also returned an image; otherwise it is a link.
 *
 * Pure: no I/O, no SDK.
 */
import type { JobEnvelope, JobOutput } from '../jobs/envelope.js';
import { chatConsentSummary } from '../paid/chat-summary.js';
import { type ConsentCard, priceLine } from '../paid/consent-card.js';
import {
  admittedText,
  approvalPageLink,
  audioLink,
  CUT,
  costText,
  handleText,
  imageAlt,
  listSpend,
  moreBlocks,
  NO_JOBS,
  NOT_SENT_YET,
  progressText,
  STATUS_HEADER,
  videoAlt,
  videoLink,
} from './wording.js';

/** Block Kit's limits (api.slack.com/reference/block-kit/blocks). */
export const LIMITS = {
  blocks: 50,
  text: 3000,
  header: 150,
  videoTitle: 200,
  imageTitle: 2000,
  altText: 2000,
  contextElements: 10,
  url: 3000,
} as const;

type PlainText = { type: 'plain_text'; text: string; emoji?: boolean };
type Mrkdwn = { type: 'mrkdwn'; text: string };
export type SlackBlock =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text: Mrkdwn }
  | { type: 'context'; elements: Mrkdwn[] }
  | { type: 'divider' }
  | { type: 'image'; image_url: string; alt_text: string; title?: PlainText }
  | {
      type: 'video';
      video_url: string;
      thumbnail_url: string;
      alt_text: string;
      title: PlainText;
      title_url?: string;
      description?: PlainText;
    };

const clip = (s: string, max: number, tail = '…') => (s.length <= max ? s : `${s.slice(0, max - tail.length)}${tail}`);
/** mrkdwn's three control characters, escaped as Slack asks. */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: clip(text, LIMITS.header) },
});
/** A section of mrkdwn; `raw` is already mrkdwn (links), else the text is escaped. */
const section = (text: string, raw = false): SlackBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: clip(raw ? text : esc(text), LIMITS.text, CUT) },
});
const context = (...texts: string[]): SlackBlock => ({
  type: 'context',
  elements: texts.slice(0, LIMITS.contextElements).map((t) => ({ type: 'mrkdwn', text: clip(esc(t), LIMITS.text) })),
});

/** An output as a block: an image block, a video block (with a thumbnail), else a link. */
function outputBlock(o: JobOutput, title: string, cost: string, thumbnail: string | undefined): SlackBlock {
  const shown = `${title} · ${cost}`;
  if (o.media === 'image' && o.url.length <= LIMITS.url) {
    return {
      type: 'image',
      image_url: o.url,
      alt_text: clip(imageAlt(title), LIMITS.altText),
      title: { type: 'plain_text', text: clip(shown, LIMITS.imageTitle) },
    };
  }
  if (o.media === 'video' && thumbnail && o.url.length <= LIMITS.url) {
    return {
      type: 'video',
      video_url: o.url,
      thumbnail_url: thumbnail,
      alt_text: clip(videoAlt(title), LIMITS.altText),
      title: { type: 'plain_text', text: clip(shown, LIMITS.videoTitle) },
    };
  }
  const link = o.media === 'audio' ? audioLink : videoLink;
  return section(link(esc(title), o.url, esc(cost)), true);
}

/** A job's outputs: the first image of the same job is a video's thumbnail. */
function outputsBlocks(outputs: readonly JobOutput[], title: string, cost: string): SlackBlock[] {
  const thumbnail = outputs.find((o) => o.media === 'image')?.url;
  return outputs.map((o, n) => outputBlock(o, outputs.length > 1 ? `${title} (${n + 1})` : title, cost, thumbnail));
}

interface CampaignItemLike {
  index: number;
  tool: string;
  varied: Record<string, unknown>;
  status: string;
  quote: number;
  charged?: number | undefined;
  outputs: JobOutput[];
  reason?: string | undefined;
}
interface CampaignLike {
  handle: string;
  total: number;
  done: number;
  progress: string;
  items: CampaignItemLike[];
}

const variedText = (v: Record<string, unknown>) =>
  Object.entries(v)
    .map(([k, x]) => `${k} ${clip(typeof x === 'string' ? x : JSON.stringify(x), 40)}`)
    .join(', ');
const itemTitle = (i: CampaignItemLike) =>
  `#${i.index} ${Object.keys(i.varied).length ? variedText(i.varied) : i.tool}`;

/** One envelope (get_job, a paid tool, one of wait_for_jobs'), with its consent card when it is a quote. */
export function envelopeBlocks(env: JobEnvelope, card?: ConsentCard): SlackBlock[] {
  const blocks: SlackBlock[] = [header(STATUS_HEADER[env.status] ?? env.status)];
  const details = env.details as { campaign?: unknown; items?: unknown } | undefined;
  // The campaign view (get_job, wait_for_jobs); a campaign just admitted names only its id and item count.
  const campaign = isCampaignView(details?.campaign) ? details.campaign : undefined;
  const admitted = typeof details?.campaign === 'string' && typeof details.items === 'number' ? details.items : 0;
  switch (env.status) {
    case 'confirmation_required': {
      const text = card
        ? chatConsentSummary(card, { fullCard: [{ at: 'app' }, { at: 'request' }] }).text
        : env.estimate
          ? priceLine(env.estimate)
          : env.next_step;
      blocks.push(section(text), context(NOT_SENT_YET));
      break;
    }
    case 'approval_required': {
      const page = (env.details as { approval_page?: unknown } | undefined)?.approval_page;
      blocks.push(section(env.reason ?? env.next_step));
      if (env.estimate) blocks.push(context(`Cost (total): ${priceLine(env.estimate)}`));
      if (typeof page === 'string') blocks.push(section(approvalPageLink(page), true));
      break;
    }
    default: {
      if (campaign) blocks.push(...campaignBlocks(campaign));
      else if (admitted > 0) blocks.push(section(admittedText(admitted)));
      else {
        if (env.reason) blocks.push(section(env.reason));
        if (env.outputs?.length) {
          const title = env.kind ?? 'output';
          blocks.push(...outputsBlocks(env.outputs, title, costText(env.credits_charged, env.estimate?.credits)));
        }
      }
    }
  }
  if (env.handle) blocks.push(context(handleText(env.handle)));
  return blocks;
}

function isCampaignView(v: unknown): v is CampaignLike {
  return typeof v === 'object' && v !== null && Array.isArray((v as CampaignLike).items);
}

/** A campaign: "k of N done", then each finished item's outputs (title = what it varies, its cost). */
function campaignBlocks(c: CampaignLike): SlackBlock[] {
  const running = c.items.filter((i) => !['completed', 'failed', 'released', 'unknown'].includes(i.status)).length;
  const blocks: SlackBlock[] = [section(progressText(c.progress, running))];
  for (const i of c.items) {
    const cost = costText(i.charged, i.quote);
    if (i.outputs.length) blocks.push(...outputsBlocks(i.outputs, itemTitle(i), cost));
    else if (i.status === 'failed' || i.status === 'released' || i.status === 'unknown') {
      blocks.push(context(`${itemTitle(i)}: ${i.status}${i.reason ? ` (${i.reason})` : ''}`));
    }
  }
  return blocks;
}

interface JobRowLike {
  handle: string;
  tool: string;
  status: string;
  summary: string;
  estimate?: { credits: number } | undefined;
  credits_charged?: number | undefined;
  outputs: JobOutput[];
}

/** list_jobs: one line per job (status, what, cost), and today's spend. */
export function listBlocks(
  rows: readonly JobRowLike[],
  spend: { today_credits: number; max_credits_per_day?: number },
) {
  const lines = rows.map(
    (r) =>
      `• ${r.status} · ${clip(r.summary, 120)} · ${costText(r.credits_charged, r.estimate?.credits)} · \`${r.handle}\``,
  );
  const blocks: SlackBlock[] = [header('Jobs'), context(listSpend(spend.today_credits, spend.max_credits_per_day))];
  if (lines.length === 0) blocks.push(section(NO_JOBS));
  // A section per ~20 lines keeps each text under its 3,000 characters.
  for (let k = 0; k < lines.length; k += 20) blocks.push(section(lines.slice(k, k + 20).join('\n')));
  return blocks;
}

/**
 * Block Kit's limits over a whole message: at most 50 blocks, the last one saying how many did not fit.
 * (Per-block limits are applied where each block is made.)
 */
export function fitBlocks(blocks: SlackBlock[], what = 'blocks'): SlackBlock[] {
  if (blocks.length <= LIMITS.blocks) return blocks;
  const kept = blocks.slice(0, LIMITS.blocks - 1);
  return [...kept, context(moreBlocks(blocks.length - kept.length, what))];
}

/**
 * The blocks of one tool's structured result, or undefined when it has none to show.
 * @param card the consent card of a quote (`_meta['genplat/confirm'].card`).
 */
export function resultBlocks(structured: unknown, card?: ConsentCard): SlackBlock[] | undefined {
  if (!structured || typeof structured !== 'object') return undefined;
  const s = structured as Record<string, unknown>;
  if (typeof s.status === 'string' && typeof s.next_step === 'string') {
    return fitBlocks(envelopeBlocks(s as JobEnvelope, card));
  }
  if (Array.isArray(s.jobs) && s.spend && typeof s.spend === 'object') {
    return fitBlocks(listBlocks(s.jobs as JobRowLike[], s.spend as { today_credits: number }), 'jobs');
  }
  if (Array.isArray(s.jobs)) {
    const all = (s.jobs as JobEnvelope[]).flatMap((e, n) => [
      ...(n > 0 ? [{ type: 'divider' } as const] : []),
      ...envelopeBlocks(e),
    ]);
    return fitBlocks(all);
  }
  return undefined;
}
