/**
 * Block Kit's rules for the blocks this server emits (api.slack.com/reference/block-kit/blocks), checked at run
 * time: at most 50 blocks; each block of a known type with exactly its allowed fields, every required field
 * present and non-empty, and every text within its limit. The types come from `@slack/types` (`KnownBlock`):
 * `asKnownBlocks` only compiles while the builder's block type is assignable to Slack's.
 */
import type { KnownBlock } from '@slack/types';
import type { SlackBlock } from '../../src/slack/blocks.js';

/** Compile-time: every block the builder can make is a Block Kit block as `@slack/types` defines it. */
export const asKnownBlocks = (blocks: SlackBlock[]): KnownBlock[] => blocks;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const ALLOWED: Record<string, { required: string[]; optional: string[] }> = {
  header: { required: ['text'], optional: ['block_id'] },
  section: { required: [], optional: ['text', 'fields', 'accessory', 'block_id', 'expand'] },
  context: { required: ['elements'], optional: ['block_id'] },
  divider: { required: [], optional: ['block_id'] },
  image: { required: ['image_url', 'alt_text'], optional: ['title', 'block_id'] },
  video: {
    required: ['video_url', 'thumbnail_url', 'alt_text', 'title'],
    optional: ['title_url', 'description', 'provider_name', 'provider_icon_url', 'author_name', 'block_id'],
  },
};

function textObject(v: unknown, where: string, max: number, kinds: string[], out: string[]): void {
  if (!isObj(v)) {
    out.push(`${where}: not a text object`);
    return;
  }
  if (!kinds.includes(String(v.type))) out.push(`${where}.type: ${String(v.type)} (want ${kinds.join('/')})`);
  if (typeof v.text !== 'string' || v.text.length === 0) out.push(`${where}.text: missing or empty`);
  else if (v.text.length > max) out.push(`${where}.text: ${v.text.length} characters (max ${max})`);
}

function url(v: unknown, where: string, out: string[]): void {
  if (typeof v !== 'string' || v.length === 0) out.push(`${where}: missing`);
  else if (v.length > 3000) out.push(`${where}: longer than 3000`);
  else if (!/^https?:\/\//.test(v)) out.push(`${where}: not an http(s) URL`);
}

/** Every rule a message of blocks breaks; empty when it is valid. */
export function blockProblems(blocks: unknown): string[] {
  const out: string[] = [];
  if (!Array.isArray(blocks)) return ['blocks: not an array'];
  if (blocks.length === 0) out.push('blocks: empty');
  if (blocks.length > 50) out.push(`blocks: ${blocks.length} (max 50)`);
  for (const [i, b] of blocks.entries()) {
    const at = `blocks[${i}]`;
    if (!isObj(b)) {
      out.push(`${at}: not an object`);
      continue;
    }
    const rule = ALLOWED[String(b.type)];
    if (!rule) {
      out.push(`${at}.type: unknown ${String(b.type)}`);
      continue;
    }
    for (const k of rule.required) if (b[k] === undefined) out.push(`${at}.${k}: required`);
    for (const k of Object.keys(b)) {
      if (k !== 'type' && !rule.required.includes(k) && !rule.optional.includes(k)) out.push(`${at}.${k}: not allowed`);
    }
    switch (b.type) {
      case 'header':
        textObject(b.text, `${at}.text`, 150, ['plain_text'], out);
        break;
      case 'section':
        if (b.text === undefined && b.fields === undefined) out.push(`${at}: text or fields required`);
        if (b.text !== undefined) textObject(b.text, `${at}.text`, 3000, ['mrkdwn', 'plain_text'], out);
        break;
      case 'context': {
        const els = b.elements;
        if (!Array.isArray(els) || els.length === 0 || els.length > 10) out.push(`${at}.elements: 1 to 10`);
        else
          for (const [k, e] of els.entries())
            textObject(e, `${at}.elements[${k}]`, 3000, ['mrkdwn', 'plain_text'], out);
        break;
      }
      case 'image':
        url(b.image_url, `${at}.image_url`, out);
        if (typeof b.alt_text !== 'string' || !b.alt_text || b.alt_text.length > 2000)
          out.push(`${at}.alt_text: 1-2000`);
        if (b.title !== undefined) textObject(b.title, `${at}.title`, 2000, ['plain_text'], out);
        break;
      case 'video':
        url(b.video_url, `${at}.video_url`, out);
        url(b.thumbnail_url, `${at}.thumbnail_url`, out);
        if (typeof b.alt_text !== 'string' || !b.alt_text) out.push(`${at}.alt_text: required`);
        textObject(b.title, `${at}.title`, 199, ['plain_text'], out);
        if (b.description !== undefined) textObject(b.description, `${at}.description`, 199, ['plain_text'], out);
        break;
    }
  }
  return out;
}
