/**
 * The stand-in model: an HTTP server on 127.0.0.1 speaking the provider API a host uses, answering from
 * `script.mjs`. One per host run. It speaks, by request path:
 *   Anthropic Messages   POST …/v1/messages (SSE when `stream`), …/v1/messages/count_tokens      (Claude Code)
 *   Gemini               POST …/models/M:streamGenerateContent (SSE) | :generateContent | :countTokens (Gemini CLI)
 *   OpenAI Responses     POST …/responses (SSE when `stream`)                                   (Codex)
 *   OpenAI Chat          POST …/chat/completions (SSE when `stream`)                            (opencode)
 * A request that carries our tools is a turn of the flow; any other (titles, routing, next-speaker checks,
 * summaries) gets a short neutral answer, shaped after its JSON schema when it asks for JSON.
 * `record` is what the suite asserts on: the tool names offered, the calls the script made, the outcome.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { FLOW_TOOLS, nextStep, offeredName } from './script.mjs';

export async function startModel({ label, logFile, dumpDir }) {
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  const record = { offered: [], calls: [], outcome: null, finalText: null, requests: 0, turns: 0, other: [] };
  const log = (line) => logFile && appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      record.requests++;
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {}
      if (dumpDir)
        writeFileSync(join(dumpDir, `${String(record.requests).padStart(3, '0')}.json`), JSON.stringify(body, null, 1));
      try {
        route(req, res, body);
      } catch (err) {
        log(`ERROR ${req.method} ${req.url}: ${err?.stack ?? err}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
      }
    });
  });

  /** One turn: the next step from this request's tools + history; records it. */
  /** Keeps the longest tool list a request offered (the report shows it when ours are missing). */
  const see = (offered) => {
    if (offered.length > record.offered.length) record.offered = offered;
  };
  function turn(offered, history, kind) {
    see(offered);
    record.turns++;
    const step = nextStep(offered, history, label);
    if (step.call) {
      record.calls.push(step.call.name);
      log(`${kind} turn ${record.turns}: call ${step.call.name} ${JSON.stringify(step.call.args)}`);
    } else {
      record.outcome = step.outcome;
      record.finalText = step.text;
      log(`${kind} turn ${record.turns}: ${step.text}`);
    }
    return step;
  }
  const ours = (offered) => Boolean(offeredName(offered, 'list_avatars'));
  const other = (kind, what) => {
    record.other.push(`${kind} ${what}`);
    log(`${kind} other request: ${what}`);
  };

  function route(req, res, body) {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    log(`${req.method} ${req.url}`);
    if (req.method === 'GET') {
      // Model lists (Codex, opencode may ask): an empty list is enough, the model name comes from config.
      return json(res, { object: 'list', data: [], models: [] });
    }
    if (p.endsWith('/messages/count_tokens')) return json(res, { input_tokens: 100 });
    if (p.endsWith('/messages')) return anthropic(res, body);
    if (p.includes(':countTokens')) return json(res, { totalTokens: 100 });
    if (p.includes(':streamGenerateContent') || p.includes(':generateContent')) {
      return gemini(res, body, p.includes(':streamGenerateContent'));
    }
    if (p.endsWith('/responses')) return responses(res, body);
    if (p.endsWith('/chat/completions')) return chat(res, body);
    log(`UNKNOWN ${req.method} ${p}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${p}` }));
  }

  // ---- Anthropic Messages (Claude Code) ----
  function anthropic(res, body) {
    const defined = (body.tools ?? []).map((t) => t.name).filter(Boolean);
    // Claude Code defers MCP tools behind its ToolSearch tool: their names only are listed in the conversation
    // (a <system-reminder>), a model fetches their schemas with `select:` before calling them.
    const deferred = [...new Set(JSON.stringify(body.messages ?? []).match(/mcp__[A-Za-z0-9_-]+?__[a-z0-9_]+/g) ?? [])];
    const offered = [...new Set([...defined, ...deferred])];
    let step;
    if (ours(offered) || defined.includes('ToolSearch')) {
      const calls = new Map();
      const history = [];
      let searches = 0;
      let selected = false;
      for (const m of body.messages ?? []) {
        for (const b of Array.isArray(m.content) ? m.content : []) {
          if (b.type === 'tool_use' && b.name === 'ToolSearch') {
            searches++;
            selected ||= String(b.input?.query).startsWith('select:');
          } else if (b.type === 'tool_use') {
            const h = { name: b.name, args: b.input, result: undefined };
            calls.set(b.id, h);
            history.push(h);
          } else if (b.type === 'tool_result' && calls.has(b.tool_use_id)) {
            calls.get(b.tool_use_id).result = b.content;
          }
        }
      }
      const flow = FLOW_TOOLS.map((t) => offeredName(offered, t));
      const search = (query) => {
        see(offered);
        record.turns++;
        record.toolSearches = [...(record.toolSearches ?? []), query];
        log(`anthropic turn ${record.turns}: call ToolSearch ${query}`);
        return { call: { name: 'ToolSearch', args: { query } } };
      };
      const unfetched = flow.some((n) => !n || !defined.includes(n));
      if (history.length === 0 && !selected && searches < 3 && defined.includes('ToolSearch') && unfetched) {
        // Names not listed yet (the server's tools/list had not answered when the turn started): search by keyword,
        // as a model would; once listed, fetch the three schemas.
        step = search(flow.every(Boolean) ? `select:${flow.join(',')}` : '+genplat avatars talking video jobs');
      } else step = turn(offered, history, 'anthropic');
    } else {
      see(offered);
      other('anthropic', `no flow tools: ${offered.join(', ')}`);
      step = { text: 'OK' };
    }
    const id = `toolu_${record.turns}_${Date.now()}`;
    const block = step.call
      ? { type: 'tool_use', id, name: step.call.name, input: step.call.args }
      : { type: 'text', text: step.text };
    const message = {
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'stand-in',
      content: [block],
      stop_reason: step.call ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    if (!body.stream) return json(res, message);
    sse(res);
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
    });
    if (step.call) {
      ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id, name: step.call.name, input: {} } });
      ev('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.call.args) },
      });
    } else {
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: step.text } });
    }
    ev('content_block_stop', { index: 0 });
    ev('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: 20 },
    });
    ev('message_stop', {});
    res.end();
  }

  // ---- Gemini generateContent / streamGenerateContent (Gemini CLI) ----
  function gemini(res, body, stream) {
    const offered = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    let parts;
    if (ours(offered)) {
      const history = [];
      const open = [];
      for (const c of body.contents ?? []) {
        for (const part of c.parts ?? []) {
          if (part.functionCall) {
            const h = { name: part.functionCall.name, args: part.functionCall.args, result: undefined };
            history.push(h);
            open.push(h);
          } else if (part.functionResponse) {
            const i = open.findIndex((h) => h.name === part.functionResponse.name);
            if (i >= 0) open.splice(i, 1)[0].result = part.functionResponse.response;
          }
        }
      }
      const step = turn(offered, history, 'gemini');
      parts = step.call ? [{ functionCall: { name: step.call.name, args: step.call.args } }] : [{ text: step.text }];
    } else {
      const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
      const text = schema ? JSON.stringify(fill(schema)) : 'OK';
      see(offered);
      other('gemini', `no flow tools, ${schema ? `JSON ${text}` : 'text'}`);
      parts = [{ text }];
    }
    const answer = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: body.model ?? 'stand-in',
    };
    if (!stream) return json(res, answer);
    sse(res);
    res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    res.end();
  }

  // ---- OpenAI Responses (Codex) ----
  function responses(res, body) {
    const offered = toolNames(body.tools ?? []);
    let step;
    if (ours(offered)) {
      const calls = new Map();
      const history = [];
      for (const item of Array.isArray(body.input) ? body.input : []) {
        if (item.type === 'function_call') {
          const h = { name: qualified(item), args: parseArgs(item.arguments), result: undefined };
          calls.set(item.call_id, h);
          history.push(h);
        } else if (item.type === 'function_call_output' && calls.has(item.call_id)) {
          calls.get(item.call_id).result = item.output;
        }
      }
      step = turn(offered, history, 'responses');
    } else {
      see(offered);
      other('responses', `no flow tools: ${offered.join(', ')}`);
      step = { text: 'OK' };
    }
    const n = `${record.turns}_${Date.now()}`;
    const item = step.call
      ? {
          type: 'function_call',
          id: `fc_${n}`,
          call_id: `call_${n}`,
          ...splitName(body.tools ?? [], step.call.name),
          arguments: JSON.stringify(step.call.args),
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_${n}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: step.text, annotations: [] }],
        };
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    };
    const response = {
      id: `resp_${n}`,
      object: 'response',
      status: 'completed',
      model: body.model,
      output: [item],
      usage,
    };
    if (!body.stream) return json(res, response);
    sse(res);
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev('response.created', { response: { ...response, status: 'in_progress', output: [] } });
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
    if (!step.call)
      ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: step.text });
    ev('response.output_item.done', { output_index: 0, item });
    ev('response.completed', { response });
    res.end();
  }

  // ---- OpenAI Chat Completions (opencode's openai-compatible provider) ----
  function chat(res, body) {
    const offered = (body.tools ?? []).map((t) => t.function?.name).filter(Boolean);
    let step;
    if (ours(offered)) {
      const calls = new Map();
      const history = [];
      for (const m of body.messages ?? []) {
        for (const tc of m.role === 'assistant' ? (m.tool_calls ?? []) : []) {
          const h = { name: tc.function?.name, args: parseArgs(tc.function?.arguments), result: undefined };
          calls.set(tc.id, h);
          history.push(h);
        }
        if (m.role === 'tool' && calls.has(m.tool_call_id)) calls.get(m.tool_call_id).result = m.content;
      }
      step = turn(offered, history, 'chat');
    } else {
      see(offered);
      other('chat', `no flow tools: ${offered.join(', ')}`);
      step = { text: 'Stand-in title' };
    }
    const id = `chatcmpl_${Date.now()}`;
    const toolCall = step.call && {
      index: 0,
      id: `call_${record.turns}_${Date.now()}`,
      type: 'function',
      function: { name: step.call.name, arguments: JSON.stringify(step.call.args) },
    };
    const finish = step.call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    const base = {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'stand-in',
    };
    if (!body.stream) {
      const message = step.call
        ? { role: 'assistant', content: null, tool_calls: [toolCall] }
        : { role: 'assistant', content: step.text };
      return json(res, { ...base, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    sse(res);
    const chunk = (choices, extra = {}) =>
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`);
    chunk([
      {
        index: 0,
        delta: step.call ? { role: 'assistant', tool_calls: [toolCall] } : { role: 'assistant', content: step.text },
      },
    ]);
    chunk([{ index: 0, delta: {}, finish_reason: finish }], { usage });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    record,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function json(res, v) {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
}
function sse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}
function parseArgs(a) {
  if (typeof a !== 'string') return a ?? {};
  try {
    return JSON.parse(a);
  } catch {
    return {};
  }
}

/** Function names in a Responses `tools` array, namespaced tools (`{type: 'namespace', name, tools}`) as `ns` + name. */
function toolNames(tools, prefix = '') {
  const out = [];
  for (const t of tools) {
    if (Array.isArray(t.tools)) out.push(...toolNames(t.tools, `${prefix}${nsPrefix(t.name)}`));
    else if (t.name) out.push(`${prefix}${t.name}`);
  }
  return out;
}
/** `mcp__genplat` → `mcp__genplat__`: a namespace and its tool's name read as one name (as Claude Code spells it). */
function nsPrefix(ns) {
  return !ns ? '' : ns.endsWith('__') ? ns : `${ns}__`;
}
/** A function_call item's full name (its namespace, when the host uses them, + name). */
function qualified(item) {
  return `${nsPrefix(item.namespace)}${item.name}`;
}
/** The inverse of toolNames for a call: `{ namespace?, name }`. */
function splitName(tools, full) {
  for (const t of tools) {
    if (Array.isArray(t.tools) && t.name && full.startsWith(nsPrefix(t.name))) {
      const rest = full.slice(nsPrefix(t.name).length);
      if (t.tools.some((x) => x.name === rest)) return { namespace: t.name, name: rest };
    }
  }
  return { name: full };
}

/** A value for a JSON schema (the first enum value, empty strings/arrays, required object fields). */
function fill(s) {
  if (!s || typeof s !== 'object') return 'stand-in';
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = String(s.type ?? (s.properties ? 'object' : 'string')).toLowerCase();
  if (type === 'object') {
    const o = {};
    for (const [k, v] of Object.entries(s.properties ?? {})) o[k] = fill(v);
    return o;
  }
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  return 'stand-in';
}
