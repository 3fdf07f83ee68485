/**
 * The stand-in's script against the shapes the pinned hosts really hand a tool result back in (recorded from
 * their requests: `node hosts/run.mjs --keep` dumps them under <run dir>/requests/). run.mjs runs this first.
 *   node --test hosts/lib/script.test.mjs
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DONE_TEXT, nextStep, offeredName, ourJson } from './script.mjs';

const quote = { status: 'confirmation_required', kind: 'actor_video', confirmation_token: 'tok.mac' };
const text = JSON.stringify(quote);

test('reads our JSON from each host result shape', () => {
  const shapes = {
    // Claude Code 2.1: tool_result.content = the first text block, as a string
    'claude-code': text,
    // Gemini CLI 0.61: functionResponse.response.output, wrapped in <untrusted_context>
    gemini: { output: `<untrusted_context>\n${text}\n</untrusted_context>` },
    // Codex 0.171: function_call_output.output, prefixed with the call's wall time
    codex: `Wall time: 0.0319 seconds\nOutput:\n${text}`,
    // opencode 1.18: the tool message's content string
    opencode: text,
    // OpenClaw 2026.9: the tool message's content = a `structuredContent:` label, it pretty-printed, then the text
    openclaw: `structuredContent:\n${JSON.stringify(quote, null, 2)}\n${text}`,
    // MCP content blocks, structuredContent
    blocks: [{ type: 'text', text }],
    structured: { content: [{ type: 'text', text: 'x' }], structuredContent: quote },
  };
  for (const [host, shape] of Object.entries(shapes)) assert.deepEqual(ourJson(shape), quote, host);
  assert.equal(ourJson('Tool error: unknown avatar'), null);
  // The first object ends at its own closing brace, not at a brace inside one of its strings.
  const braces = { ...quote, message: 'use {token} }' };
  assert.deepEqual(
    ourJson(`structuredContent:\n${JSON.stringify(braces, null, 2)}\n${JSON.stringify(braces)}`),
    braces,
  );
});

test('offered names: each host prefix, never a longer tool', () => {
  assert.equal(offeredName(['mcp__genplat__list_avatars'], 'list_avatars'), 'mcp__genplat__list_avatars');
  assert.equal(offeredName(['mcp_genplat_wait_for_jobs'], 'wait_for_jobs'), 'mcp_genplat_wait_for_jobs');
  assert.equal(offeredName(['genplat_wait_for_jobs_x'], 'wait_for_jobs'), undefined);
});

test('the flow: list → quote → confirmed call → waits → done', () => {
  const offered = ['p_list_avatars', 'p_create_talking_video', 'p_wait_for_jobs'];
  const h = [];
  const step = () => nextStep(offered, h, 'test');
  assert.deepEqual(step().call, { name: 'p_list_avatars', args: {} });
  h.push({ name: 'p_list_avatars', args: {}, result: JSON.stringify({ avatars: [{ id: 'av_1' }] }) });
  const create = step().call;
  assert.deepEqual(create, {
    name: 'p_create_talking_video',
    args: { avatar_id: 'av_1', voice_script: 'Real-hosts suite, test.' },
  });
  h.push({ ...create, result: text });
  const confirmed = step().call;
  assert.deepEqual(confirmed.args, { ...create.args, confirmation_token: 'tok.mac' });
  h.push({ ...confirmed, result: JSON.stringify({ status: 'submitted', handle: 'actor_video:1' }) });
  const wait = step().call;
  assert.deepEqual(wait, { name: 'p_wait_for_jobs', args: { handles: ['actor_video:1'], max_wait_s: 20 } });
  h.push({ ...wait, result: JSON.stringify({ done: false, jobs: [{ status: 'processing' }] }) });
  assert.deepEqual(step().call, wait);
  h.push({ ...wait, result: JSON.stringify({ done: true, jobs: [{ status: 'completed' }] }) });
  assert.deepEqual(step(), { text: DONE_TEXT, outcome: 'completed' });
});

test('stops, saying why: a tool not offered, an error result, a second quote', () => {
  assert.equal(nextStep(['p_list_avatars'], [], 'test').outcome, 'tools missing');
  const offered = ['list_avatars', 'create_talking_video', 'wait_for_jobs'];
  const error = [{ name: 'list_avatars', args: {}, result: 'MCP error: boom' }];
  assert.match(nextStep(offered, error, 'test').text, /^STOP: no JSON result from list_avatars: .*boom/);
  const twice = [{ name: 'create_talking_video', args: { confirmation_token: 't' }, result: text }];
  assert.equal(nextStep(offered, twice, 'test').outcome, 'quoted twice');
});
