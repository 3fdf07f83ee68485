#!/usr/bin/env node
/**
 * The reference bot's CI run (issue 29 item 5; docs/chat-bots.md "The reference bot"). Everything on loopback:
 *   - the platform: a standalone simulator (`genplat-mcp sim`, its request log counts the POSTs);
 *   - genplat-mcp over HTTP: the bot's delegating token (`chatbot`), Slack identity auth with the Slack app's
 *     signing secret (how the bot relays a decision as the Slack person who clicked), a people file (two people
 *     and a lead), an approval policy (a campaign of N × 100 credits needs the lead), events to the bot;
 *   - a stand-in of Slack (ci/slack.mjs: the Web API, recording every call, and the Events API: signed mentions
 *     and button clicks), the stand-in model (ci/model.mjs), and the bot itself (lib/bot.mjs) in this process.
 * Scenario: Bob asks something free in his thread; Alice asks for a campaign of N in hers; the consent card is
 * shown, Bob's click on it is refused, Alice confirms; the approval card names the lead; Alice's and Bob's
 * approvals are refused and nothing is sent; the lead approves; the server's events arrive and the N videos are
 * uploaded into Alice's thread through the external upload calls; nothing about it reaches Bob's thread; exactly
 * N POSTs reached the platform.
 *
 *   npm ci --prefix examples/chat-bot && npm run build && node examples/chat-bot/run.mjs [--keep]
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY, NODE, serverEnv, startHttpServer, startSim, stop } from '../../hosts/lib/procs.mjs';
import { QUOTE_TEXT, startModel } from './ci/model.mjs';
import { startSlack, TEAM } from './ci/slack.mjs';
import { createBot } from './lib/bot.mjs';
import { serve } from './lib/serve.mjs';

const N = 3;
const CHANNEL = 'C_VIDEO';
const USERS = { U_ALICE: { name: 'Alice Example' }, U_BOB: { name: 'Bob Example' }, U_LEAD: { name: 'Lena Lead' } };
const keep = process.argv.includes('--keep');
const deadline = Date.now() + 150_000;

readFileSync(ENTRY); // fails early, naming the path, when the server is not built
// The receiver against the event contract first (signed by the standardwebhooks library, no server needed).
const selfTest = spawnSync(process.execPath, ['--test', join(import.meta.dirname, 'lib/events.test.mjs')], {
  encoding: 'utf8',
});
if (selfTest.status !== 0) {
  console.log(selfTest.stdout, selfTest.stderr);
  console.log("chat-bot: the bot's event receiver test failed (examples/chat-bot/lib/events.test.mjs)");
  process.exit(1);
}
console.log(
  `ok   the event receiver against the contract (lib/events.test.mjs: ${/# pass (\d+)/.exec(selfTest.stdout)?.[1]} tests)`,
);
const work = mkdtempSync(join(tmpdir(), 'genplat-chat-bot-'));
const started = performance.now();
const checks = [];
const check = (name, ok, detail = '') => {
  checks.push({ name, ok: Boolean(ok), detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
};

const secret = (n) => randomBytes(n).toString('hex');
const SLACK_SECRET = secret(16);
const BOT_TOKEN = `chatbot-${secret(12)}`;
const EVENTS_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let sim;
let http;
let model;
let slack;
let bot;
let front;
const fetchedSha = [];
try {
  sim = await startSim(join(work, 'sim'));
  model = await startModel();
  slack = await startSlack({ signingSecret: SLACK_SECRET, users: USERS });
  const received = [];
  bot = createBot({
    slack: {
      botToken: 'xoxb-stand-in',
      signingSecret: SLACK_SECRET,
      apiUrl: slack.apiUrl,
      botUserId: 'U_BOT',
      teamId: TEAM,
    },
    genplat: { url: 'pending', token: BOT_TOKEN, caller: 'token:chatbot' },
    eventsSecret: EVENTS_SECRET,
    modelConfig: { baseURL: model.baseURL, apiKey: 'stand-in', id: 'stand-in' },
    onEventReceived: (e) => received.push(e),
    // The bytes of each finished output as the bot fetched them from the platform (checked against the uploads).
    fetchOutput: async (url) => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`GET ${url} → ${r.status}`);
      const bytes = Buffer.from(await r.arrayBuffer());
      fetchedSha.push(createHash('sha256').update(bytes).digest('hex'));
      return bytes;
    },
    log: (l) => writeFileSync(join(work, 'bot.log'), `${new Date().toISOString()} ${l}\n`, { flag: 'a' }),
  });
  front = await serve(bot, { port: 0 });
  const slackUrl = `${front.origin}/slack/events`;

  mkdirSync(join(work, 'etc'));
  const people = join(work, 'etc/people.json');
  writeFileSync(
    people,
    JSON.stringify({
      'token:chatbot:U_ALICE': { name: USERS.U_ALICE.name },
      'token:chatbot:U_BOB': { name: USERS.U_BOB.name },
      [`slack:${TEAM}:U_LEAD`]: { name: USERS.U_LEAD.name, groups: ['video-leads'] },
    }),
  );
  const approvalsFile = join(work, 'etc/approvals.json');
  writeFileSync(
    approvalsFile,
    JSON.stringify({
      rules: [{ name: 'campaigns', when: { credits_at_least: N * 100 }, approver_groups: ['video-leads'] }],
    }),
  );
  http = await startHttpServer(
    {
      ...serverEnv(sim, join(work, 'state')),
      GENPLAT_HTTP_DELEGATING: 'chatbot',
      GENPLAT_PEOPLE: people,
      GENPLAT_APPROVALS: approvalsFile,
      GENPLAT_SLACK_SIGNING_SECRETS: SLACK_SECRET,
      GENPLAT_SLACK_TEAMS: TEAM,
      GENPLAT_EVENTS_URL: `${front.origin}/genplat/events`,
      GENPLAT_EVENTS_SECRET: EVENTS_SECRET,
      GENPLAT_LOG_LEVEL: 'info',
    },
    join(work, 'server.log'),
    `chatbot=${BOT_TOKEN}`,
  );
  bot.setGenplatUrl(http.url);

  const inThread = (ts) => (c) => (c.args.thread_ts ?? c.args.message_ts) === ts;
  const posted = (ts) => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts);
  const cardWith = (ts, actionId) =>
    [...slack.messages.values()].find(
      (m) => m.thread_ts === ts && JSON.stringify(m.blocks ?? []).includes(`"action_id":"${actionId}"`),
    );
  const until = async (what, fn) => {
    for (;;) {
      await bot.idle();
      const v = fn();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const ephemeralsTo = (user) => slack.calls.filter((c) => c.method === 'chat.postEphemeral' && c.args.user === user);

  // Bob's thread: something free.
  const bobTs = await slack.mention(slackUrl, { user: 'U_BOB', channel: CHANNEL, text: 'which avatars are there?' });
  const bobAnswer = await until("Bob's answer", () => posted(bobTs)[0]);
  check(
    "Bob's thread: the model's answer with the avatars",
    /avatars:/.test(bobAnswer.args.text ?? ''),
    bobAnswer.args.text,
  );

  // Alice's thread: a campaign of N.
  const aliceTs = await slack.mention(slackUrl, {
    user: 'U_ALICE',
    channel: CHANNEL,
    text: `make a campaign of ${N} talking videos for the spring launch`,
  });
  const consent = await until('the consent card', () => cardWith(aliceTs, 'genplat_confirm'));
  const consentText = JSON.stringify(consent.blocks);
  check(
    'consent card in Alice’s thread: the summary, the price, only Alice confirms',
    consentText.includes(`campaign of ${N} items`) &&
      /300 credits/.test(consentText) &&
      consentText.includes('<@U_ALICE>'),
    consentText.slice(0, 400),
  );
  check(
    'the model said the quote in the thread',
    posted(aliceTs).some((c) => c.args.text === QUOTE_TEXT),
  );
  const createCalls = model.record.calls.filter((c) => c.name === 'create_campaign');
  check('the model called create_campaign once', createCalls.length === 1, JSON.stringify(model.record.calls));
  check('decide_approval is not offered to the model', !model.record.offered.includes('decide_approval'));

  await slack.click(slackUrl, { user: 'U_BOB', message: consent, actionId: 'genplat_confirm' });
  await bot.idle();
  check("Bob's click on Alice's Confirm is refused (ephemeral)", ephemeralsTo('U_BOB').length === 1);
  await slack.click(slackUrl, { user: 'U_ALICE', message: consent, actionId: 'genplat_confirm' });
  const approval = await until('the approval card', () => cardWith(aliceTs, 'genplat_approve'));
  const approvalText = JSON.stringify(approval.blocks);
  check(
    'approval card in Alice’s thread names the lead (approvers from the server)',
    approvalText.includes('<@U_LEAD>') && approvalText.includes('Lena Lead'),
    approvalText.slice(0, 400),
  );
  check('nothing sent before the approval', sim.posts() === 0, `${sim.posts()} POSTs`);

  await slack.click(slackUrl, { user: 'U_ALICE', message: approval, actionId: 'genplat_approve' });
  await bot.idle();
  check('Alice approving her own request is refused', ephemeralsTo('U_ALICE').length === 1);
  await slack.click(slackUrl, { user: 'U_BOB', message: approval, actionId: 'genplat_approve' });
  await bot.idle();
  const bobRefusal = ephemeralsTo('U_BOB')[1]?.args.text ?? '';
  check('Bob (not an approver) approving is refused by the server', /not taken/.test(bobRefusal), bobRefusal);
  check('still nothing sent', sim.posts() === 0, `${sim.posts()} POSTs`);

  await slack.click(slackUrl, { user: 'U_LEAD', message: approval, actionId: 'genplat_approve' });
  await bot.idle();
  check(
    'the lead approves: the card says so',
    /Approved by <@U_LEAD>/.test(slack.messages.get(approval.ts)?.text ?? ''),
    slack.messages.get(approval.ts)?.text,
  );

  const completes = () => slack.calls.filter((c) => c.method === 'files.completeUploadExternal');
  // The simulator's demo timing finishes a video in 8-15 s; the first event (approval.decided) comes at once.
  await until('the first event from the server (GENPLAT_EVENTS_URL)', () => received.length > 0, Date.now() + 30_000);
  await until(
    `${N} videos uploaded`,
    () => completes().length >= N && posted(aliceTs).some((c) => /Campaign finished/.test(c.args.text ?? '')),
  );
  const urls = slack.calls.filter((c) => c.method === 'files.getUploadURLExternal');
  const uploads = slack.calls.filter((c) => c.method === 'upload');
  check(`${N} × files.getUploadURLExternal`, urls.length === N, `${urls.length}`);
  const sorted = (a) => [...a].sort().join(',');
  check(
    `${N} uploads of the videos' bytes as the platform served them`,
    uploads.length === N &&
      uploads.every((u) => u.args.bytes > 0) &&
      sorted(uploads.map((u) => u.args.sha256)) === sorted(fetchedSha),
    JSON.stringify(uploads),
  );
  check(
    `${N} × files.completeUploadExternal into Alice's thread`,
    completes().length === N && completes().every((c) => c.args.channel_id === CHANNEL && c.args.thread_ts === aliceTs),
    JSON.stringify(completes().map((c) => c.args)),
  );
  const types = new Set(received.map((e) => e.type));
  const counts = {};
  for (const e of received) counts[e.type] = (counts[e.type] ?? 0) + 1;
  console.log(
    `     events received: ${Object.entries(counts)
      .map(([t, n]) => `${t} ×${n}`)
      .join(', ')}`,
  );
  check(
    'events received (signed, verified)',
    ['approval.decided', 'job.completed', 'campaign.completed'].every((t) => types.has(t)),
    [...types].join(', '),
  );
  const bobCalls = slack.calls.filter(inThread(bobTs));
  check(
    "nothing about Alice's campaign in Bob's thread",
    bobCalls.length === 1 &&
      bobCalls[0].method === 'chat.postMessage' &&
      !/campaign|approv|video/i.test(bobCalls[0].args.text ?? ''),
    JSON.stringify(bobCalls.map((c) => [c.method, c.args.text])),
  );
  check(`exactly ${N} POSTs reached the platform`, sim.posts() === N, `${sim.posts()}`);
  // The server's audit: the decision is the lead's own (a Slack person, carrier slack), on Alice's request.
  const audit = spawnSync(NODE, [ENTRY, 'audit', 'export', '--format', 'jsonl'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GENPLAT_STATE_DIR: join(work, 'state'), GENPLAT_PEOPLE: people },
  });
  const rows = audit.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.record === 'approval' && r.approver);
  check(
    "the audit: one decision, by the lead as a Slack person, on Alice's request",
    rows.length === 1 &&
      rows[0].approver === `slack:${TEAM}:U_LEAD` &&
      rows[0].approver_name === 'Lena Lead' &&
      rows[0].carrier === 'slack' &&
      rows[0].owner === 'token:chatbot:U_ALICE' &&
      rows[0].owner_name === 'Alice Example',
    `${audit.stderr}${JSON.stringify(rows)}`,
  );
} catch (err) {
  check('the run', false, String(err?.stack ?? err));
} finally {
  await stop(http?.child);
  await stop(sim?.child);
  await bot?.close().catch(() => {});
  await front?.close();
  await slack?.close();
  await model?.close();
}

const failed = checks.filter((c) => !c.ok);
const seconds = Math.round((performance.now() - started) / 100) / 10;
if (failed.length || keep) {
  writeFileSync(join(work, 'slack-calls.json'), JSON.stringify(slack?.calls ?? [], null, 1));
  console.log(`(logs kept in ${work}: server.log, bot.log, slack-calls.json, sim/sim.log)`);
} else rmSync(work, { recursive: true, force: true });
console.log(`\nchat-bot run: ${seconds} s`);
console.log(`chat-bot: ${checks.length - failed.length} passed, ${failed.length} failed`);
process.exitCode = failed.length ? 1 : 0;
