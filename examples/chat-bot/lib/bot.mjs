/**
 * The reference chat bot (issue 29 item 5; docs/chat-bots.md "The reference bot"): Vercel's Chat SDK with its
 * Slack adapter, the AI SDK's MCP client and model loop, and a Standard Webhooks receiver for genplat's events.
 *
 *   a mention in a thread  → the model, with the server's tools as that person (delegation) → a quote
 *   the quote              → a consent card in the thread; only the requester's Confirm sends the call again
 *                            with its confirmation token (the model never confirms)
 *   approval_required      → an approval card naming the approvers from the server's answer; Approve/Decline
 *                            are relayed as the person who clicked (signed as that Slack person)
 *   the server's events    → progress, and each finished video uploaded into the thread (Slack's external
 *                            upload: files.getUploadURLExternal → the bytes → files.completeUploadExternal)
 *
 * Everything the bot remembers (which thread a quote, approval, campaign or job belongs to) is in memory: one
 * process, and a restart forgets the threads of requests in flight (their events are acknowledged and dropped).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createSlackAdapter } from '@chat-adapter/slack';
import { createMemoryState } from '@chat-adapter/state-memory';
import { generateText, isStepCount } from 'ai';
import { Actions, Button, Card, Chat, CardText as Text } from 'chat';
import { eventReceiver } from './events.mjs';
import { envelopeOf, genplat, textOf } from './genplat.mjs';
import { SYSTEM, who, words } from './wording.mjs';

const PAID_STATUSES = new Set(['submitted', 'processing', 'completed', 'unknown']);
const campaignHandle = (id) => (id.startsWith('campaign:') ? id : `campaign:${id}`);
const approvalId = (handle) => handle.replace(/^approval:/, '');

/** ≤ 10 lines: what the consent card of a call describes (its summary, price, and the items' varying values). */
export function consentSummary(card, envelope) {
  const price = card?.price ?? (envelope?.estimate ? `${envelope.estimate.credits} credits` : 'price unknown');
  const lines = [`*${card?.summary ?? 'paid request'}* · ${price}`];
  const items = new Map();
  for (const f of card?.fields ?? []) {
    const m = /^items\[(\d+)\]\.(?:body\.)?(.+)$/.exec(f.name);
    if (!m || m[2] === 'route' || m[2] === 'tool') continue;
    if (!items.has(m[1])) items.set(m[1], []);
    items.get(m[1]).push(`${m[2]} ${JSON.stringify(f.value).slice(0, 60)}`);
  }
  const list = [...items.values()];
  for (const [i, parts] of list.slice(0, 8).entries()) lines.push(`${i + 1}. ${parts.join(' · ')}`);
  if (list.length > 8) lines.push(`… and ${list.length - 8} more`);
  return lines.join('\n');
}

/**
 * `createBot(options)`: `{ chat, slackWebhook(request), eventsWebhook(headers, rawBody), idle(), close() }`.
 * options: `slack` {botToken, signingSecret, apiUrl?, botUserId?, teamId?}, `genplat` {url, token, caller},
 * `model` (an AI SDK language model) or `modelConfig` {baseURL, apiKey, id}, `eventsSecret` (whsec_…),
 * `decisionsAs` ('slack' = signed as the Slack person who clicked, the default; 'delegated' = on_behalf_of),
 * `fetchOutput(url)` → bytes of a finished output (default: fetch), `log`.
 */
export function createBot(options) {
  const log = options.log ?? ((line) => process.stderr.write(`[chat-bot] ${line}\n`));
  const slack = createSlackAdapter({
    botToken: options.slack.botToken,
    signingSecret: options.slack.signingSecret,
    ...(options.slack.apiUrl ? { apiUrl: options.slack.apiUrl } : {}),
    ...(options.slack.botUserId ? { botUserId: options.slack.botUserId } : {}),
    userName: options.slack.userName ?? 'genplat',
    // Short retries: the stand-in or Slack answering 429 must not hold a turn for half an hour.
    webClientOptions: { retryConfig: { retries: 2 } },
  });
  const chat = new Chat({
    userName: options.slack.userName ?? 'genplat',
    adapters: { slack },
    state: createMemoryState(),
    concurrency: 'queue',
    logger: options.chatLogLevel ?? 'warn',
  });
  let genplatUrl = options.genplat.url;
  const gp = genplat({
    url: () => genplatUrl,
    token: options.genplat.token,
    slackSigningSecret: options.slack.signingSecret,
  });
  const model =
    options.model ??
    createOpenAICompatible({
      name: 'chat-bot-model',
      baseURL: options.modelConfig.baseURL,
      apiKey: options.modelConfig.apiKey,
    }).chatModel(options.modelConfig.id);
  const botCaller = options.genplat.caller ?? 'token:chatbot';
  const decisionsAs = options.decisionsAs ?? 'slack';
  const fetchOutput =
    options.fetchOutput ??
    (async (url) => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`GET ${url} → ${r.status}`);
      return Buffer.from(await r.arrayBuffer());
    });

  // What the bot remembers, by key: quotes waiting for a click, approvals, campaigns and jobs → their thread.
  const quotes = new Map(); // key → { tool, arguments, token, requester, threadId, summary, message }
  const approvals = new Map(); // approval uuid → { threadId, requester, owner, approvers, message, closed }
  const follows = new Map(); // campaign:<id> | job handle → { threadId, owner, progress? }
  const pending = new Set();
  const track = (p) => {
    pending.add(p);
    p.catch((err) => log(`task failed: ${err?.stack ?? err}`)).finally(() => pending.delete(p));
    return p;
  };
  const ownerOf = (person) => `${botCaller}:${person.id}`;
  const personOf = (author) => ({ id: author.userId, name: author.fullName || author.userName });

  /** The server's tools for one person, minus what only a click may do (decide; confirm with a token). */
  async function toolsFor(person) {
    const client = await gp.asPerson(person);
    const tools = await client.tools();
    delete tools.decide_approval;
    for (const [name, t] of Object.entries(tools)) {
      const run = t.execute;
      t.execute = async (args, ctx) => {
        if (args && 'confirmation_token' in args)
          return { isError: true, content: [{ type: 'text', text: words.modelMayNotConfirm }] };
        return run(args, ctx);
      };
      tools[name] = t;
    }
    return tools;
  }

  /** A person's message in a thread: one model turn with their tools, then cards for what the server answered. */
  async function ask(thread, message) {
    const person = personOf(message.author);
    await thread.subscribe();
    let result;
    try {
      result = await generateText({
        model,
        system: SYSTEM,
        prompt: message.text,
        tools: await toolsFor(person),
        stopWhen: isStepCount(6),
      });
    } catch (err) {
      log(`model turn failed: ${err?.stack ?? err}`);
      await thread.post(words.callFailed(err?.message ?? String(err)));
      return;
    }
    if (result.text?.trim()) await thread.post(result.text.trim());
    for (const step of result.steps) {
      for (const tr of step.toolResults ?? []) await answered(thread, person, tr.toolName, tr.input, tr.output);
    }
  }

  /** What a paid tool answered becomes a card or a followed handle in the thread. */
  async function answered(thread, person, tool, input, output) {
    const env = envelopeOf(output);
    if (!env || output?.isError) return;
    if (env.status === 'confirmation_required' && env.confirmation_token) {
      const confirm = output?._meta?.['genplat/confirm'];
      const key = crypto.randomUUID();
      const summary = consentSummary(confirm?.card, env);
      const q = {
        tool: confirm?.tool ?? tool,
        arguments: confirm?.arguments ?? input,
        token: env.confirmation_token,
        requester: person,
        threadId: thread.id,
        summary,
      };
      quotes.set(key, q);
      q.message = await thread.post(
        Card({
          title: words.consentTitle,
          children: [
            Text(summary),
            Text(words.consentFooter(person.id)),
            Actions([
              Button({ id: 'genplat_confirm', label: words.confirm, style: 'primary', value: key }),
              Button({ id: 'genplat_cancel', label: words.cancel, value: key }),
            ]),
          ],
        }),
      );
      return;
    }
    if (env.status === 'approval_required' && env.handle?.startsWith('approval:')) {
      const id = approvalId(env.handle);
      const approvers = env.details?.approvers ?? [];
      const summary =
        approvals.get(id)?.summary ?? `*${env.kind ?? 'request'}* · ${env.estimate?.credits ?? '?'} credits`;
      const a = { threadId: thread.id, requester: person, owner: ownerOf(person), approvers, summary, closed: false };
      approvals.set(id, a);
      if (env.details?.campaign)
        follows.set(campaignHandle(env.details.campaign), { threadId: thread.id, owner: a.owner });
      a.message = await thread.post(
        Card({
          title: words.approvalTitle,
          children: [
            Text(words.approvalText(summary, approvers, env.expires_at)),
            Actions([
              Button({ id: 'genplat_approve', label: words.approve, style: 'primary', value: id }),
              Button({ id: 'genplat_decline', label: words.decline, style: 'danger', value: id }),
              // The signed approval page (OpenID sign-in), when the server offers one: a decision there rests on
              // the approver's own sign-in, not on anything the bot holds (docs/approvals-page.md).
              ...(env.details?.approval_page
                ? [LinkButton({ label: words.approvalPage, url: env.details.approval_page })]
                : []),
            ]),
          ],
        }),
      );
      return;
    }
    if (PAID_STATUSES.has(env.status) && env.handle) {
      const handle = env.kind === 'campaign' ? campaignHandle(env.handle) : env.handle;
      follows.set(handle, { threadId: thread.id, owner: ownerOf(person) });
      await thread.post(words.started(handle));
    }
  }

  async function onQuoteClick(event, confirm) {
    const q = quotes.get(event.value);
    const thread = event.thread;
    if (!q) return thread.postEphemeral(event.user, words.quoteGone, { fallbackToDM: false });
    if (event.user.userId !== q.requester.id)
      return thread.postEphemeral(event.user, words.onlyRequesterConfirms(q.requester.id), { fallbackToDM: false });
    quotes.delete(event.value); // single use: a double click confirms once
    if (!confirm) return q.message?.edit(words.cancelledBy(event.user.userId));
    await q.message?.edit(words.confirmedBy(event.user.userId, q.summary));
    const client = await gp.asPerson(q.requester);
    const r = await client.callTool({ name: q.tool, arguments: { ...q.arguments, confirmation_token: q.token } });
    if (r.isError) return thread.post(words.callFailed(textOf(r)));
    const env = envelopeOf(r);
    if (env?.status === 'approval_required' && env.handle) {
      // The approval card carries the consented summary (what the approver is asked to approve).
      const id = approvalId(env.handle);
      approvals.set(id, { summary: q.summary });
    }
    await answered(thread, q.requester, q.tool, q.arguments, r);
  }

  async function onDecisionClick(event, decision) {
    const id = event.value;
    const a = approvals.get(id);
    const thread = event.thread;
    if (!a?.threadId) return thread.postEphemeral(event.user, words.quoteGone, { fallbackToDM: false });
    const clicker = event.user;
    // The server cannot see that `token:<bot>:U1` and `slack:T:U1` are one person: the bot refuses the
    // requester's own click itself (the server refuses it too when both sides are in one namespace).
    if (clicker.userId === a.requester.id)
      return thread.postEphemeral(clicker, words.requesterCannotDecide(a.approvers), { fallbackToDM: false });
    const raw = event.raw ?? {};
    const client =
      decisionsAs === 'slack'
        ? await gp.asSlackPerson({
            user_id: clicker.userId,
            team_id: raw.team?.id ?? raw.user?.team_id ?? options.slack.teamId,
            enterprise_id: raw.enterprise?.id ?? null,
          })
        : await gp.asPerson(personOf(clicker));
    // While the click is relayed, the server's approval.decided event leaves the card to this handler.
    a.deciding = (a.deciding ?? 0) + 1;
    let r;
    try {
      r = await client.callTool({ name: 'decide_approval', arguments: { approval: `approval:${id}`, decision } });
    } finally {
      a.deciding--;
    }
    if (r.isError) return thread.postEphemeral(clicker, words.decisionRefused(textOf(r)), { fallbackToDM: false });
    const state = envelopeOf(r)?.state;
    if (state === 'pending')
      return thread.postEphemeral(clicker, words.stillWaiting(clicker.userId), { fallbackToDM: false });
    a.closed = true;
    await a.message?.edit(state === 'declined' ? words.declinedBy(clicker.userId) : words.approvedBy(clicker.userId));
  }

  chat.onNewMention((thread, message) => ask(thread, message));
  chat.onSubscribedMessage((thread, message) => ask(thread, message));
  chat.onAction(['genplat_confirm', 'genplat_cancel'], (e) => onQuoteClick(e, e.actionId === 'genplat_confirm'));
  chat.onAction(['genplat_approve', 'genplat_decline'], (e) =>
    onDecisionClick(e, e.actionId === 'genplat_approve' ? 'approve' : 'decline'),
  );

  /** The thread an event belongs to: only one the bot recorded for that very owner (never guessed). */
  function contextOf(data) {
    const keys = [
      data.campaign && campaignHandle(data.campaign),
      data.handle,
      data.approval && approvalId(data.approval),
    ];
    for (const k of keys.filter(Boolean)) {
      const f = follows.get(k) ?? approvals.get(k);
      if (f?.threadId && f.owner === data.owner) return f;
    }
    return undefined;
  }

  async function onEvent(event) {
    options.onEventReceived?.(event);
    const data = event.data ?? {};
    if (typeof data.owner !== 'string' || !data.owner.startsWith(`${botCaller}:`)) return; // not one of ours
    if (event.type === 'job.submitted' && data.campaign) {
      const f = contextOf(data);
      if (f) follows.set(data.handle, { threadId: f.threadId, owner: f.owner });
      return;
    }
    if (event.type === 'job.submitted' && data.handle && !contextOf(data)) return;
    const ctx = contextOf(data);
    if (!ctx) return log(`event ${event.type} for a request this bot does not follow; dropped`);
    const thread = chat.thread(ctx.threadId);
    switch (event.type) {
      case 'approval.decided': {
        const a = approvals.get(approvalId(data.approval));
        if (a && !a.closed && !a.deciding) {
          a.closed = true;
          await a.message?.edit(words.decidedElsewhere(data.decision, data.decidedBy && who({ id: data.decidedBy })));
        }
        return;
      }
      case 'job.completed': {
        for (const out of data.outputs ?? []) {
          ctx.outputs = (ctx.outputs ?? 0) + 1; // numbered in the thread as they arrive
          const title = out.title ?? `${words.outputTitle(out.kind)} ${ctx.outputs}`;
          if (out.kind === 'video' || out.kind === 'image' || out.kind === 'audio') {
            const bytes = await fetchOutput(out.url);
            const ext = out.kind === 'video' ? 'mp4' : out.kind === 'image' ? 'png' : 'mp3';
            const name = `${title.replace(/[^\w.-]+/g, '-').slice(0, 80)}.${ext}`;
            await thread.post({
              markdown: words.videoDone(title, data.charged),
              files: [{ data: bytes, filename: name }],
            });
          } else {
            await thread.post(words.outputLink(title, out.url));
          }
        }
        return;
      }
      case 'job.failed':
        return void (await thread.post(words.jobFailed(data.tool ?? 'a job', data.reason, data.refunded)));
      case 'campaign.progress': {
        const text = words.progress(data.message ?? `${data.done} of ${data.total} done`);
        if (ctx.progress) await ctx.progress.edit(text);
        else ctx.progress = await thread.post(text);
        return;
      }
      case 'campaign.completed':
        return void (await thread.post(words.campaignDone(data.completed, data.total, data.failed, data.charged)));
      case 'budget.threshold':
        return void (await thread.post(words.budget(data.percent, data.spent, data.limit)));
      default:
        return;
    }
  }

  const receive = eventReceiver({ secret: options.eventsSecret, onEvent, log });

  return {
    chat,
    /** Slack's Events API and interactivity (one URL for both): a web Request in, a Response out. */
    slackWebhook: (request) => chat.webhooks.slack(request, { waitUntil: (p) => track(Promise.resolve(p)) }),
    /** genplat's events: the raw body and its headers (lower-case names) in, `{status, body}` out. */
    eventsWebhook: (headers, rawBody) => track(receive(headers, rawBody)),
    /** Resolves when no webhook's work is running. */
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    /** The handles the bot follows into threads. */
    followed: () => [...follows.keys()],
    /** Follow a handle (`campaign:<id>`, a job's handle) into a thread for `owner` (learned some other way). */
    follow(handle, { threadId, owner }) {
      follows.set(handle, { threadId, owner });
    },
    /** The server's MCP URL, when it is known only after the bot listens (its events URL names the bot). */
    setGenplatUrl(url) {
      genplatUrl = url;
    },
    async close() {
      await this.idle();
      await gp.close();
    },
  };
}
