/**
 * The paid flow every client must complete with its own tool objects (no model):
 *   list_avatars + list_voices → create_talking_video (quote: confirmation_required + token)
 *   → create_talking_video with confirmation_token (one job) → wait_for_jobs until completed.
 * `invoke(name, args)` is the client's own tool call, returning the tool's JSON object (each framework hands
 * the result back in its own shape; `parseToolText` reads the JSON text block our server always sends first).
 */

// The sandbox's default timing finishes a talking video in seconds; 120 s is a hung server, not a slow one.
const JOB_DEADLINE_MS = 120_000;

export function check(ok, what, detail) {
  if (!ok) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)?.slice(0, 600)}`}`);
}

/** Our results: content[0] is the JSON text of structuredContent; an error result is text only. */
export function parseToolText(text, name) {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${name} returned non-JSON text (an error result?): ${String(text).slice(0, 600)}`);
  }
}

/** The first text block of an MCP content array (or a single block, or a string). */
export function firstText(content, name) {
  if (typeof content === 'string') return content;
  const blocks = Array.isArray(content) ? content : [content];
  const t = blocks.find((b) => b && b.type === 'text');
  check(t, `${name}: no text block`, content);
  return t.text;
}

/** Runs the flow; `invoke` is counted. Returns the handle, the quote's credits and the number of calls. */
export async function paidFlow(invoke, label) {
  let calls = 0;
  const call = async (name, args) => {
    calls++;
    return invoke(name, args);
  };
  const avatar = (await call('list_avatars', {})).avatars?.[0]?.id;
  const voice = (await call('list_voices', {})).voices?.[0]?.id;
  check(typeof avatar === 'string' && typeof voice === 'string', 'an avatar and a voice', { avatar, voice });
  const args = { avatar_id: avatar, voice_id: voice, voice_script: `Compatibility suite, ${label}.` };
  const quote = await call('create_talking_video', args);
  check(
    quote.status === 'confirmation_required' && typeof quote.confirmation_token === 'string',
    'quote (confirmation_required + token)',
    quote,
  );
  const sent = await call('create_talking_video', { ...args, confirmation_token: quote.confirmation_token });
  check(sent.status === 'submitted' && typeof sent.handle === 'string', 'confirmed call submitted a job', sent);
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (;;) {
    const r = await call('wait_for_jobs', { handles: [sent.handle], max_wait_s: 20 });
    const job = r.jobs?.[0];
    if (r.done) {
      check(job?.status === 'completed' && (job.outputs?.length ?? 0) > 0, 'job completed with outputs', job);
      return { handle: sent.handle, credits: quote.estimate?.credits, calls };
    }
    check(Date.now() < deadline, `job not finished after ${JOB_DEADLINE_MS} ms`, job);
  }
}
