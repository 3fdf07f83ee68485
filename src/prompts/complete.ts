/**
 * Completions for prompt arguments, from the live (cached) catalog, so a host offers only values the
 * platform accepts. A failed catalog fetch completes to nothing: completion is a convenience, never an error.
 */
import { completable } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { readPacks } from '../../tools/_shared/packs.js';
import type { Catalog } from '../catalog.js';
import type { Logger } from '../log.js';

export interface PromptDeps {
  catalog: Catalog;
  log: Logger;
}

/** Argument values from the other arguments already filled in (MCP `context.arguments`). */
type Source = (deps: PromptDeps, args: Record<string, string>) => Promise<string[]>;

/** Distinct non-empty values, sorted. */
const distinct = (values: (string | undefined)[]) =>
  [...new Set(values.filter((v): v is string => typeof v === 'string' && v.trim() !== ''))].sort();

export const SOURCES = {
  language: async ({ catalog }) => distinct((await catalog.voices()).map((v) => v.language)),
  gender: async ({ catalog }) => distinct((await catalog.avatars()).map((a) => a.gender)),
  category: async ({ catalog }) => (await catalog.categories()).map((c) => c.value),
  // Templates of the category already chosen, when there is one.
  template_id: async ({ catalog }, args) => (await catalog.templates(args.category || undefined)).map((t) => t.id),
  pack_category: async ({ catalog }) => readPacks(await catalog.packs()).map((p) => p.category),
} satisfies Record<string, Source>;

/**
 * An optional string argument completed from `source` (case-insensitive prefix match). The SDK marks the
 * schema object itself, so `.describe()` must come before this call (it returns a copy without the mark).
 */
export function completed(deps: PromptDeps, description: string, source: Source) {
  // v2 finds the completer only on the schema inside the outer optional, so `.optional()` goes last.
  return completable(z.string().describe(description), async (value, context) => {
    try {
      const prefix = (value ?? '').toLowerCase();
      const all = await source(deps, context?.arguments ?? {});
      return all.filter((v) => v.toLowerCase().startsWith(prefix));
    } catch (err) {
      deps.log.debug('prompt completion failed', { error: String(err) });
      return [];
    }
  }).optional();
}

/** An optional argument with a fixed set of values; prompts/get rejects any other value. */
export function oneOf<const T extends readonly [string, ...string[]]>(description: string, values: T) {
  return completable(z.enum(values).describe(description), (value) =>
    values.filter((v) => v.startsWith((value ?? '').toLowerCase())),
  ).optional();
}
