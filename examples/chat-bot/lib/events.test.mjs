/**
 * The bot's receiver against the event contract (docs/events.md), without a genplat server: events signed with
 * the `standardwebhooks` library as the server signs them, delivered to the bot's HTTP endpoint, the bot posting
 * into the loopback Slack stand-in. Run by run.mjs before the end-to-end run (`node --test`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startSlack } from '../ci/slack.mjs';
import { createBot } from './bot.mjs';
import { serve } from './serve.mjs';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const THREAD_TS = '1800000000.000042';
const OTHER_TS = '1800000000.000043';
const ALICE = 'token:chatbot:U_ALICE';
const VIDEO = Buffer.from('not really an mp4, but bytes');
let slack;
let bot;
let front;
const fetched = [];

before(async () => {
  slack = await startSlack({ signingSecret: 'slack-secret-for-the-receiver-test', users: {} });
  bot = createBot({
    slack: {
      botToken: 'xoxb-stand-in',
      signingSecret: 'slack-secret-for-the-receiver-test',
      apiUrl: slack.apiUrl,
      botUserId: 'U_BOT',
    },
    genplat: { url: 'http://127.0.0.1:9/mcp', token: 'unused', caller: 'token:chatbot' },
    eventsSecret: SECRET,
    modelConfig: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', id: 'unused' },
    fetchOutput: async (url) => {
      fetched.push(url);
      return VIDEO;
    },
    log: () => {},
  });
  bot.follow('campaign:c1', { threadId: `slack:C_VIDEO:${THREAD_TS}`, owner: ALICE });
  bot.follow('campaign:c2', { threadId: `slack:C_VIDEO:${OTHER_TS}`, owner: 'token:chatbot:U_BOB' });
  front = await serve(bot, { port: 0 });
});
after(async () => {
  await bot.close();
  await front.close();
  await slack.close();
});

let n = 0;
async function deliver(type, data, { id = `evt_${++n}`, secret = SECRET, at = new Date() } = {}) {
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
  const signature = new Webhook(secret).sign(id, at, body);
  const r = await fetch(`${front.origin}/genplat/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body,
  });
  await bot.idle();
  return r.status;
}
const completed = (campaign, owner, k) => ({
  owner,
  person: { id: owner },
  handle: `video:v${k}`,
  tool: 'create_talking_video',
  campaign,
  charged: 100,
  outputs: [{ url: `http://127.0.0.1:9/media/v${k}.mp4`, kind: 'video', title: `Spring take ${k}` }],
});
const calls = (m) => slack.calls.filter((c) => c.method === m);

test('a signature made with another secret, or a stale timestamp, is refused (401) and nothing is posted', async () => {
  const other = `whsec_${randomBytes(24).toString('base64')}`;
  assert.equal(await deliver('job.completed', completed('campaign:c1', ALICE, 1), { secret: other }), 401);
  const stale = new Date(Date.now() - 10 * 60_000);
  assert.equal(await deliver('job.completed', completed('campaign:c1', ALICE, 1), { at: stale }), 401);
  assert.equal(slack.calls.length, 0);
});

test('job.completed of a followed campaign: the video is uploaded into its thread by the external upload', async () => {
  assert.equal(await deliver('job.completed', completed('campaign:c1', ALICE, 1), { id: 'evt_same' }), 200);
  assert.equal(calls('files.getUploadURLExternal').length, 1);
  const [upload] = calls('upload');
  assert.equal(upload.args.bytes, VIDEO.length);
  const [done] = calls('files.completeUploadExternal');
  assert.equal(done.args.channel_id, 'C_VIDEO');
  assert.equal(done.args.thread_ts, THREAD_TS);
  assert.deepEqual(fetched, ['http://127.0.0.1:9/media/v1.mp4']);
  const title = calls('chat.postMessage').find((c) => c.args.thread_ts === THREAD_TS);
  assert.equal(title.args.markdown_text, '🎬 Spring take 1 (100 credits)');
});

test('a redelivery under the same webhook-id is acknowledged and not handled again', async () => {
  assert.equal(await deliver('job.completed', completed('campaign:c1', ALICE, 1), { id: 'evt_same' }), 200);
  assert.equal(calls('files.completeUploadExternal').length, 1);
});

test("an event whose owner is not the thread's requester is dropped (no post anywhere)", async () => {
  const before = slack.calls.length;
  // Bob's event naming Alice's campaign, and an event of a caller outside this bot's namespace.
  assert.equal(await deliver('job.completed', completed('campaign:c1', 'token:chatbot:U_BOB', 2)), 200);
  assert.equal(await deliver('job.completed', completed('campaign:c1', 'slack:T1:U_ALICE', 3)), 200);
  assert.equal(slack.calls.length, before);
});

test('campaign.progress edits one message; campaign.completed and job.failed are posted in the thread', async () => {
  const base = { owner: ALICE, person: { id: ALICE }, campaign: 'campaign:c1' };
  await deliver('campaign.progress', { ...base, done: 1, total: 3, failed: 0, message: '1 of 3 done' });
  await deliver('campaign.progress', { ...base, done: 2, total: 3, failed: 0, message: '2 of 3 done' });
  await deliver('job.failed', {
    ...base,
    handle: 'video:v3',
    tool: 'create_talking_video',
    reason: 'the avatar was busy',
    charged: 0,
    refunded: 100,
  });
  await deliver('campaign.completed', { ...base, total: 3, completed: 2, failed: 1, charged: 200 });
  const posts = calls('chat.postMessage')
    .filter((c) => c.args.thread_ts === THREAD_TS)
    .map((c) => c.args.text ?? c.args.markdown_text);
  assert.ok(posts.includes('⏳ 1 of 3 done'), posts.join(' | '));
  assert.ok(calls('chat.update').some((c) => c.args.text === '⏳ 2 of 3 done'));
  assert.ok(posts.some((t) => t.includes('the avatar was busy') && t.includes('100 credits refunded')));
  assert.ok(posts.some((t) => t.startsWith('Campaign finished: 2 of 3 done, 1 failed, 200 credits charged')));
  assert.equal(slack.calls.filter((c) => c.args.thread_ts === OTHER_TS).length, 0);
});
