/**
 * A loopback stand-in of Slack for the bot's CI run: the Web API (`POST /api/<method>`, form-encoded or JSON, as
 * `@slack/web-api` sends it) answering the methods the bot uses, the external-upload target (`POST /upload/<file
 * id>`), and the Events API side: signed events and button clicks sent to the bot's request URL, as Slack sends
 * them (`X-Slack-Signature: v0=HMAC-SHA256(signing secret, "v0:<ts>:<raw body>")`, `X-Slack-Request-Timestamp`).
 * Every call is recorded in order in `calls` (method, args, and for uploads the byte count and sha256).
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';

export const TEAM = 'T1';
export const BOT_USER = 'U_BOT';

export async function startSlack({ signingSecret, users }) {
  const calls = [];
  let seq = 0;
  const nextTs = () => `${1_800_000_000 + Math.floor(seq / 1000)}.${String(++seq).padStart(6, '0')}`;
  const files = new Map();
  const messages = new Map(); // ts → the posted message (channel, thread_ts, text, blocks)

  const answer = (method, args) => {
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: BOT_USER, user: 'genplat', bot_id: 'B1', team_id: TEAM, team: 'Team One' };
      case 'users.info': {
        const u = users[args.user] ?? { name: args.user };
        return {
          ok: true,
          user: {
            id: args.user,
            name: u.name,
            real_name: u.name,
            profile: { display_name: u.name, real_name: u.name },
          },
        };
      }
      case 'conversations.info':
        return { ok: true, channel: { id: args.channel, name: args.channel.toLowerCase(), is_private: false } };
      case 'chat.postMessage': {
        const ts = nextTs();
        const m = {
          channel: args.channel,
          thread_ts: args.thread_ts,
          text: args.text,
          blocks: parseMaybe(args.blocks),
          ts,
        };
        messages.set(ts, m);
        return { ok: true, channel: args.channel, ts, message: { ...m, type: 'message', user: BOT_USER } };
      }
      case 'chat.update': {
        const m = messages.get(args.ts);
        if (m) Object.assign(m, { text: args.text, blocks: parseMaybe(args.blocks) });
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'files.getUploadURLExternal': {
        const id = `F${String(files.size + 1).padStart(4, '0')}`;
        files.set(id, { id, filename: args.filename, length: Number(args.length), bytes: undefined });
        return { ok: true, upload_url: `${origin}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const list = parseMaybe(args.files) ?? [];
        return { ok: true, files: list.map((f) => ({ id: f.id, title: f.title, name: files.get(f.id)?.filename })) };
      }
      default:
        return { ok: true };
    }
  };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url, 'http://x');
      if (url.pathname.startsWith('/upload/')) {
        const id = url.pathname.slice('/upload/'.length);
        const f = files.get(id);
        const bytes = multipartFileBytes(raw, req.headers['content-type']) ?? raw;
        calls.push({ method: 'upload', args: { file_id: id, bytes: bytes.length, sha256: sha256(bytes) } });
        if (f) f.bytes = bytes;
        res.writeHead(f ? 200 : 404, { 'content-type': 'text/plain' }).end(f ? `OK - ${bytes.length}` : 'no such file');
        return;
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const args = parseArgs(raw.toString('utf8'), req.headers['content-type']);
      delete args.token;
      calls.push({ method, args });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(method, args)));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;

  /** POSTs `body` to the bot's Slack request URL, signed as Slack signs. */
  async function deliver(botUrl, body, contentType) {
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = `v0=${createHmac('sha256', signingSecret).update(`v0:${ts}:${body}`).digest('hex')}`;
    const r = await fetch(botUrl, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-slack-request-timestamp': ts, 'x-slack-signature': sig },
      body,
    });
    if (r.status !== 200) throw new Error(`the bot answered ${r.status} to a Slack delivery: ${await r.text()}`);
  }

  let eventSeq = 0;
  return {
    origin,
    apiUrl: `${origin}/api/`,
    calls,
    messages,
    files,
    /** A person mentions the bot at the top of `channel` (a new thread); resolves with the thread's ts. */
    async mention(botUrl, { user, channel, text }) {
      const ts = nextTs();
      const event = {
        type: 'app_mention',
        user,
        text: `<@${BOT_USER}> ${text}`,
        ts,
        channel,
        event_ts: ts,
        team: TEAM,
      };
      const body = JSON.stringify({
        token: 'unused',
        team_id: TEAM,
        api_app_id: 'A1',
        type: 'event_callback',
        event_id: `Ev${++eventSeq}`,
        event_time: Math.floor(Date.now() / 1000),
        event,
        authorizations: [{ team_id: TEAM, user_id: BOT_USER, is_bot: true }],
      });
      await deliver(botUrl, body, 'application/json');
      return ts;
    },
    /** `user` clicks the button `actionId` of the bot's message `message` (as recorded by chat.postMessage). */
    async click(botUrl, { user, message, actionId }) {
      const button = (message.blocks ?? [])
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.type === 'button' && e.action_id === actionId);
      if (!button) throw new Error(`no button ${actionId} in message ${message.ts}`);
      const payload = {
        type: 'block_actions',
        user: { id: user, username: users[user]?.name ?? user, name: users[user]?.name ?? user, team_id: TEAM },
        api_app_id: 'A1',
        team: { id: TEAM, domain: 'team-one' },
        channel: { id: message.channel, name: message.channel.toLowerCase() },
        container: {
          type: 'message',
          message_ts: message.ts,
          channel_id: message.channel,
          thread_ts: message.thread_ts,
          is_ephemeral: false,
        },
        message: {
          type: 'message',
          ts: message.ts,
          thread_ts: message.thread_ts,
          text: message.text,
          blocks: message.blocks,
          user: BOT_USER,
        },
        trigger_id: `trigger-${++eventSeq}`,
        response_url: `${origin}/response/${eventSeq}`,
        actions: [
          {
            type: 'button',
            action_id: actionId,
            block_id: 'b',
            value: button.value,
            action_ts: String(Date.now() / 1000),
          },
        ],
      };
      await deliver(
        botUrl,
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        'application/x-www-form-urlencoded',
      );
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

function parseMaybe(v) {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function parseArgs(text, contentType = '') {
  if (!text) return {};
  if (contentType.includes('application/json')) return JSON.parse(text);
  return Object.fromEntries(new URLSearchParams(text));
}

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/** The file part's bytes of a multipart/form-data body (what `@slack/web-api` uploads), else undefined. */
function multipartFileBytes(raw, contentType = '') {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!m) return undefined;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  let at = raw.indexOf(boundary);
  while (at !== -1) {
    const next = raw.indexOf(boundary, at + boundary.length);
    if (next === -1) break;
    const part = raw.subarray(at + boundary.length, next);
    const split = part.indexOf('\r\n\r\n');
    if (split !== -1 && /filename=/i.test(part.subarray(0, split).toString('utf8')))
      return part.subarray(split + 4, part.length - 2); // drop the CRLF before the next boundary
    at = next;
  }
  return undefined;
}
