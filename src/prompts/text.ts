/**
 * The lines every prompt repeats, worded once so the flow (quote → confirm → wait) reads the same in each
 * prompt and matches the server instructions (src/server.ts INSTRUCTIONS).
 */

/** Billable tools answer with a quote first (or ask the user through the host); never skip the user. */
export const CONFIRM =
  'If it returns status confirmation_required, show the user the cost; call again with the same arguments plus confirmation_token only after they agree. Never resubmit a job whose status is unknown.';

/** The platform rejects a voiceId passed as voice_id (platform-api.md); models mix them up easily. */
export const VOICE_ID = 'use the voice\'s "id" as voice_id, not its "voiceId"';

/** Jobs outlive one wait_for_jobs call (each waits at most ~50 s, mcp-notes 2.13). */
export const WAIT =
  'Call wait_for_jobs with the handle; while it is still pending, call again with the returned handles until completed or failed. Then give the user the output URL(s).';

/** A user message holding numbered steps: the shape every prompt returns. */
export function steps(intro: string, lines: string[]) {
  const text = [intro, ...lines.map((l, i) => `${i + 1}. ${l}`)].join('\n');
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}

/** `(language "English")` when given, else nothing: optional args only add words when set. */
export const quoted = (label: string, value: string | undefined) => (value ? ` (${label} "${value}")` : '');
