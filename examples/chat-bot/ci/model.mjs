/**
 * The stand-in model of the bot's CI run (as `hosts/lib/model.mjs` is for the host CLIs): an OpenAI-compatible
 * `POST /chat/completions` on 127.0.0.1 (what `@ai-sdk/openai-compatible` calls), answering from a script that
 * reads only the conversation the AI SDK sends back (the person's message, the tools offered, the tool results):
 *   "… campaign of N …" → list_avatars → create_campaign with N talking videos of the first avatar → a one-line
 *                         answer about the quote (the bot shows the consent card from the tool result)
 *   "… avatars …"      → list_avatars → the names
 *   anything else      → a short answer, no tool.
 * `record.calls` = every tool call it made (name, arguments), `record.offered` = the tool names of the last turn.
 */
import { createServer } from 'node:http';

export const QUOTE_TEXT = 'Here is the quote for your campaign: confirm it with the button below.';

function nextStep(body) {
  const messages = body.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const ask = textOf(messages[lastUser]?.content);
  const after = messages.slice(lastUser + 1);
  const results = after.filter((m) => m.role === 'tool').map((m) => parse(textOf(m.content)));
  const calls = after.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
  const campaign = /campaign of (\d+)/i.exec(ask);
  if (campaign) {
    const n = Number(campaign[1]);
    if (!calls.includes('list_avatars')) return { call: ['list_avatars', {}] };
    if (!calls.includes('create_campaign')) {
      const avatars = findKey(results[calls.indexOf('list_avatars')], 'avatars') ?? [];
      const avatar = avatars[0]?.id;
      if (!avatar) return { text: 'I found no avatar to use.' };
      const items = Array.from({ length: n }, (_, i) => ({
        tool: 'create_talking_video',
        arguments: {
          avatar_id: avatar,
          voice_script: `Spring launch, take ${i + 1}.`,
          video_name: `Spring take ${i + 1}`,
        },
      }));
      return { call: ['create_campaign', { items }] };
    }
    return { text: QUOTE_TEXT };
  }
  if (/avatars/i.test(ask)) {
    if (!calls.includes('list_avatars')) return { call: ['list_avatars', {}] };
    const avatars = findKey(results[0], 'avatars') ?? [];
    return { text: `${avatars.length} avatars: ${avatars.map((a) => a.name).join(', ')}.` };
  }
  return { text: 'I make videos: ask me for a campaign of N talking videos.' };
}

const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => p.text ?? '').join('') : '';
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
/** The first value under `key` anywhere in `v`, JSON strings inside it included (MCP results nest their text). */
function findKey(v, key) {
  if (typeof v === 'string') {
    const p = parse(v);
    return typeof p === 'string' ? undefined : findKey(p, key);
  }
  if (!v || typeof v !== 'object') return undefined;
  if (key in v) return v[key];
  for (const x of Object.values(v)) {
    const f = findKey(x, key);
    if (f !== undefined) return f;
  }
  return undefined;
}

export async function startModel() {
  const record = { calls: [], offered: [], requests: 0 };
  let seq = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      record.requests++;
      const body = parse(Buffer.concat(chunks).toString('utf8')) || {};
      if (!req.url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      record.offered = (body.tools ?? []).map((t) => t.function?.name);
      const step = nextStep(body);
      const message = step.call
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${++seq}`,
                type: 'function',
                function: { name: step.call[0], arguments: JSON.stringify(step.call[1]) },
              },
            ],
          }
        : { role: 'assistant', content: step.text };
      if (step.call) record.calls.push({ name: step.call[0], arguments: step.call[1] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${seq}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message, finish_reason: step.call ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { baseURL: `${origin}/v1`, record, close: () => new Promise((r) => server.close(r)) };
}
