/**
 * How a tools/call ended, for `metrics.toolCall` (src/telemetry/metrics.ts). A refusal and bad input both reach
 * the client as an `isError` result whose text is all that is left of the error: the runtime marks the result
 * where it still holds the error (`markOutcome`), and `outcomeOf` reads the mark, else `isError`.
 */
import { UserInputError } from '../errors.js';
import { CostRefusedError } from '../paid/wording.js';
import type { ToolOutcome } from './metrics.js';

const marks = new WeakMap<object, ToolOutcome>();

/** The outcome an error stands for: a ceiling or duplicate refusal, bad input, or anything else. */
export function errorOutcome(err: unknown): ToolOutcome {
  if (err instanceof CostRefusedError) return 'refused';
  if (err instanceof UserInputError) return 'invalid_input';
  return 'tool_error';
}

/** `result`, remembered as the answer to `err` (returns it, so a `return` stays one expression). */
export function markOutcome<T extends object>(result: T, err: unknown): T {
  marks.set(result, errorOutcome(err));
  return result;
}

/** The outcome of a tool's answer: its mark, else `tool_error` for `isError`, `input_required` for a form round. */
export function outcomeOf(answer: object): ToolOutcome {
  const marked = marks.get(answer);
  if (marked) return marked;
  if ((answer as { isError?: unknown }).isError === true) return 'tool_error';
  if ((answer as { resultType?: unknown }).resultType === 'input_required') return 'input_required';
  return 'ok';
}
