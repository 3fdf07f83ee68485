/**
 * The stand-in model's script, independent of any provider's API shape: from the tools a host offers and the
 * tool calls + results already in the conversation the host sends back, the next step of
 *   list_avatars → create_talking_video (quote) → create_talking_video + confirmation_token → wait_for_jobs…
 * It keeps no state of its own: everything is read from the request, as a real model would (a host that
 * loses or mangles a tool result makes the script stop and say why, which the suite reports).
 */

export const FLOW_TOOLS = ['list_avatars', 'create_talking_video', 'wait_for_jobs'];
// The sandbox's demo timing finishes a talking video in 8-15 s; each wait holds up to 20 s.
const MAX_WAITS = 6;
export const DONE_TEXT = 'GENPLAT-FLOW-DONE: the talking video completed.';

/** The offered name that stands for our tool `base` (hosts prefix it: `mcp__genplat__x`, `genplat_x`, …). */
export function offeredName(offered, base) {
  const re = new RegExp(`(^|[_.:-])${base}$`);
  return offered.find((n) => n === base) ?? offered.find((n) => re.test(n));
}

/** Our JSON object inside whatever shape a host hands a tool result back in (string, MCP content, wrappers). */
export function ourJson(x, depth = 0) {
  if (depth > 8 || x == null) return null;
  if (typeof x === 'string') {
    const t = x.trim();
    try {
      return ourJson(JSON.parse(t), depth + 1);
    } catch {
      const i = t.indexOf('{');
      const j = t.lastIndexOf('}');
      if (i >= 0 && j > i && (i > 0 || j < t.length - 1)) {
        const found = ourJson(t.slice(i, j + 1), depth + 1);
        if (found) return found;
      }
      // More than one JSON text after a label (OpenClaw: `structuredContent:\n{…}\n{…}`): the first object.
      const first = i >= 0 ? firstObject(t, i) : null;
      return first && first.length < t.length - i ? ourJson(first, depth + 1) : null;
    }
  }
  if (Array.isArray(x)) {
    for (const e of x) {
      const found = ourJson(e, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (typeof x !== 'object') return null;
  if ('avatars' in x || 'status' in x || 'jobs' in x) return x;
  for (const k of ['structuredContent', 'content', 'text', 'output', 'response', 'result', 'parts', 'llmContent']) {
    if (k in x) {
      const found = ourJson(x[k], depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** The balanced `{…}` that starts at `from` in `t` (braces inside JSON strings skipped), or null. */
function firstObject(t, from) {
  let depth = 0;
  let inString = false;
  for (let k = from; k < t.length; k++) {
    const c = t[k];
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return t.slice(from, k + 1);
  }
  return null;
}

const brief = (v) => JSON.stringify(v)?.slice(0, 400);

/**
 * history: [{ name, args, result }] in conversation order (result = raw, as the host sent it; undefined when the
 * host sent no result). Returns { call: { name, args } } or { text, outcome }.
 */
export function nextStep(offered, history, label) {
  const name = (base) => offeredName(offered, base);
  const missing = FLOW_TOOLS.filter((b) => !name(b));
  if (missing.length > 0) return { text: `STOP: tools not offered: ${missing.join(', ')}`, outcome: 'tools missing' };
  if (history.length === 0) return { call: { name: name('list_avatars'), args: {} } };
  const last = history.at(-1);
  const base = FLOW_TOOLS.find((b) => last.name === name(b));
  const r = ourJson(last.result);
  if (!r)
    return { text: `STOP: no JSON result from ${last.name}: ${brief(last.result)}`, outcome: 'unreadable result' };
  if (base === 'list_avatars') {
    const avatar = r.avatars?.[0]?.id;
    if (typeof avatar !== 'string') return { text: `STOP: no avatar in ${brief(r)}`, outcome: 'no avatar' };
    const args = { avatar_id: avatar, voice_script: `Real-hosts suite, ${label}.` };
    return { call: { name: name('create_talking_video'), args } };
  }
  if (base === 'create_talking_video') {
    if (r.status === 'confirmation_required' && typeof r.confirmation_token === 'string') {
      if (last.args?.confirmation_token) return { text: `STOP: quoted twice: ${brief(r)}`, outcome: 'quoted twice' };
      return {
        call: { name: last.name, args: { ...last.args, confirmation_token: r.confirmation_token } },
        quote: r,
      };
    }
    if (r.status === 'submitted' && typeof r.handle === 'string') {
      return { call: { name: name('wait_for_jobs'), args: { handles: [r.handle], max_wait_s: 20 } } };
    }
    return { text: `STOP: create_talking_video answered ${brief(r)}`, outcome: `create: ${r.status}` };
  }
  if (base === 'wait_for_jobs') {
    const job = r.jobs?.[0];
    if (r.done && job?.status === 'completed') return { text: DONE_TEXT, outcome: 'completed' };
    if (r.done) return { text: `STOP: job ended ${brief(job)}`, outcome: `job ${job?.status}` };
    const waits = history.filter((h) => h.name === last.name).length;
    if (waits >= MAX_WAITS) return { text: `STOP: not done after ${waits} waits`, outcome: 'not done' };
    return { call: { name: last.name, args: last.args } };
  }
  return { text: `STOP: unexpected tool ${last.name}`, outcome: 'unexpected tool' };
}
