/**
 * Issue 29 item 3, through a real client in both eras: a client that declares `io.slack/block-kit`
 * (`application/vnd.slack.blocks+json`) is told which tools answer in blocks (`_meta.slack.supportsBlockKit`) and
 * gets `_meta.slack.blocks` on their results: the consent summary, "waiting for approval by …", "k of N done",
 * outputs as image blocks (videos without a thumbnail as links) with title and cost. Every message of blocks, made
 * from real results of the simulator, passes the Block Kit validator (test/slack/block-validator.ts: ≤ 50 blocks,
 * text limits, each block's required and allowed fields). Another client's tools/list and results are unchanged.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { withApprovalPolicy } from '../../src/approvals/load-policy.js';
import type { Config } from '../../src/config.js';
import { estimate } from '../../src/jobs/envelope.js';
import { envelopeBlocks, fitBlocks, type SlackBlock } from '../../src/slack/blocks.js';
import { type Harness, type HarnessOptions, startHarness, structured } from '../helpers/harness.js';
import { asKnownBlocks, blockProblems } from './block-validator.js';

const SLACK_CLIENT = {
  extensions: { 'io.slack/block-kit': { mimeTypes: ['application/vnd.slack.blocks+json'] } },
} as ClientCapabilities;

const IMAGE = (n: number) => ({
  tool: 'create_shoppable_image',
  arguments: {
    category: 'beauty',
    format: 'before_after',
    image_url: 'https://cdn.example.com/serum.png',
    context: `clean bathroom shelf, take ${n}`,
  },
});
const MIXED = {
  items: [
    { tool: 'create_talking_video', arguments: { avatar_id: 'av_ava', voice_script: 'Hot coffee all day.' } },
    { tool: 'create_talking_video', arguments: { avatar_id: 'av_marcus', voice_script: 'Hot coffee all day.' } },
    IMAGE(0),
  ],
};

let h: Harness | undefined;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of cleanup.splice(0)) await c();
});

const slack = (opts: HarnessOptions = {}) =>
  startHarness({
    ...opts,
    clientCapabilities: SLACK_CLIENT,
    config: { maxCreditsPerDay: 100_000, ...opts.config },
  });

/** The blocks of a result, checked against Block Kit's rules. */
function blocksOf(r: CallToolResult): SlackBlock[] {
  const blocks = (r._meta?.slack as { blocks?: SlackBlock[] } | undefined)?.blocks;
  expect(blocks, JSON.stringify(r._meta)).toBeDefined();
  expect(blockProblems(blocks)).toEqual([]);
  return asKnownBlocks(blocks!) as SlackBlock[];
}
const allText = (blocks: SlackBlock[]) => JSON.stringify(blocks);

/** Waits for a campaign to be final through wait_for_jobs (the result a chat reads). */
async function waitDone(handle: string): Promise<CallToolResult> {
  for (let i = 0; i < 50; i++) {
    const r = await h!.call('wait_for_jobs', { handles: [handle], max_wait_s: 5 });
    if ((structured(r) as { done?: boolean }).done) return r;
  }
  throw new Error(`${handle} did not finish`);
}

describe('tools/list for a Block Kit client', () => {
  it('paid and job tools declare supportsBlockKit; another client sees no `slack` at all', async () => {
    h = await slack();
    const tools = (await h.client.listTools()).tools;
    const marked = tools.filter((t) => (t._meta?.slack as { supportsBlockKit?: boolean })?.supportsBlockKit);
    const names = marked.map((t) => t.name);
    for (const n of ['create_campaign', 'create_talking_video', 'run_model', 'get_job', 'wait_for_jobs', 'list_jobs']) {
      expect(names).toContain(n);
    }
    expect(names).not.toContain('list_avatars');
    // Exactly the paid tools (they take a confirmation token) and the three job tools.
    for (const t of tools) {
      const paid = 'confirmation_token' in ((t.inputSchema.properties ?? {}) as object);
      expect(names.includes(t.name), t.name).toBe(paid || ['get_job', 'wait_for_jobs', 'list_jobs'].includes(t.name));
    }
    const slackList = tools;
    await h.close();

    h = await startHarness();
    const plain = (await h.client.listTools()).tools;
    expect(JSON.stringify(plain)).not.toContain('"slack"');
    // The same list otherwise: only the marks differ.
    const unmarked = slackList.map((t) => {
      if (!t._meta?.slack) return t;
      const { slack: _s, ...meta } = t._meta;
      return Object.keys(meta).length ? { ...t, _meta: meta } : (({ _meta: _m, ...rest }) => rest)(t);
    });
    expect(unmarked).toEqual(plain);
    // And its results carry no blocks.
    const r = await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Plain.' });
    expect(r._meta?.slack).toBeUndefined();
  });
});

describe('results in blocks, from real results', () => {
  it('a campaign: the consent summary, then progress and its outputs (images; videos as links) with cost', async () => {
    h = await slack({ config: { confirm: { mode: 'always' } } });
    const quote = await h.call('create_campaign', MIXED, { raw: true });
    const env = structured(quote) as { status: string; confirmation_token: string };
    expect(env.status).toBe('confirmation_required');
    const q = blocksOf(quote);
    expect(q[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Paid request: not sent yet' } });
    const summary = allText(q);
    expect(summary).toContain('create_campaign: 3 items: 2 × create_talking_video, 1 × create_shoppable_image.');
    expect(summary).toContain('Cost (total): at most');
    expect(summary).toContain('Full card (every field, in full)');

    const started = await h.call('create_campaign', { ...MIXED, confirmation_token: env.confirmation_token });
    const handle = String(structured(started).handle);
    expect(handle, JSON.stringify(started)).toMatch(/^campaign:/);
    blocksOf(started);

    const done = blocksOf(await waitDone(handle));
    const text = allText(done);
    expect(text).toContain('3 of 3 done');
    const images = done.filter((b) => b.type === 'image');
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({
      title: { text: expect.stringMatching(/^#2 create_shoppable_image · (charged|quoted at most) \d+ credits?$/) },
    });
    // Talking videos: no thumbnail from the platform, so links, each with its item and cost.
    const links = done.filter((b) => b.type === 'section' && b.text.text.includes('Open the video'));
    expect(links).toHaveLength(2);
    expect(text).toMatch(/\*#0 create_talking_video\* · (charged|quoted at most) \d+ credits?/);

    blocksOf(await h.call('get_job', { handle }));
    const list = blocksOf(await h.call('list_jobs', {}));
    expect(list[0]).toMatchObject({ type: 'header' });
    expect(allText(list)).toContain('Spent today');
  });

  it('more than 50 blocks: 49 kept and the last says how many more, honestly', async () => {
    h = await slack();
    const items = Array.from({ length: 50 }, (_, n) => IMAGE(n));
    const started = await h.call('create_campaign', { items });
    const handle = String(structured(started).handle);
    const done = blocksOf(await waitDone(handle));
    expect(done).toHaveLength(50);
    const last = done[49]!;
    expect(last.type).toBe('context');
    // header + progress + 50 images + handle = 53 blocks: 4 did not fit.
    expect(JSON.stringify(last)).toContain('… and 4 more blocks (get_job shows every one)');
  });

  it('a held call: "waiting for approval by …", with its cost, in the call and in get_job', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'genplat-slack-approvals-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'approvals.json');
    await writeFile(file, JSON.stringify({ rules: [{ when: { credits_at_least: 1 }, approvers: ['token:lead'] }] }));
    const people = new Map([['token:lead', { name: 'Lena Lead', groups: [] }]]);
    const { approvals } = await withApprovalPolicy({ approvalsFile: file, people } as unknown as Config);
    h = await slack({ owner: 'token:alice', config: { approvals, people } });
    const r = await h.call('create_talking_video', { avatar_id: 'av_ava', voice_script: 'Needs a lead.' });
    expect(structured(r).status).toBe('approval_required');
    const held = allText(blocksOf(r));
    expect(held).toContain('Lena Lead');
    expect(held).toContain('Cost (total): at most');
    const seen = allText(blocksOf(await h.call('get_job', { handle: String(structured(r).handle) })));
    expect(seen).toContain('waiting for approval by Lena Lead');
    expect(h.sim.log.count({ method: 'POST' })).toBe(0);
  });
});

describe('the block builder (no platform answer has a video thumbnail)', () => {
  it('a video with an image of the same job plays in a video block with its title, cost and thumbnail', () => {
    const blocks = fitBlocks(
      envelopeBlocks({
        status: 'completed',
        handle: 'model:1',
        kind: 'model',
        estimate: estimate(40, 'x'),
        credits_charged: 35,
        outputs: [
          { url: 'https://cdn.example.com/v.mp4', media: 'video' },
          { url: 'https://cdn.example.com/v.png', media: 'image' },
        ],
        next_step: 'done',
      }),
    );
    expect(blockProblems(blocks)).toEqual([]);
    expect(blocks.find((b) => b.type === 'video')).toEqual({
      type: 'video',
      video_url: 'https://cdn.example.com/v.mp4',
      thumbnail_url: 'https://cdn.example.com/v.png',
      alt_text: 'Video: model (1)',
      title: { type: 'plain_text', text: 'model (1) · charged 35 credits' },
    });
  });

  it('a text over 3,000 characters is cut and says so', () => {
    const blocks = envelopeBlocks({ status: 'failed', reason: 'x'.repeat(5000), next_step: 'n' });
    expect(blockProblems(blocks)).toEqual([]);
    expect(JSON.stringify(blocks)).toContain('(cut: Block Kit shows at most 3,000 characters; get_job has the rest)');
  });
});
