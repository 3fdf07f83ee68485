/**
 * Content-library helpers shared by `list_templates`, `create_template_video` and the template resources:
 * the compact template view and the require_fields checks (the credit value is read by the price grammar,
 * src/paid/pricing/estimate.ts templateEstimate).
 */
import type { Template } from '../../src/client/schemas.js';
import { UserInputError } from '../../src/errors.js';
import { isUrlShaped } from '../../src/guards/url-shaped.js';

export interface CompactField {
  type: string;
  label?: string;
  max?: number;
}

export interface CompactTemplate {
  id: string;
  title: string;
  credit: string;
  category: string[];
  fields: Record<string, CompactField>;
}

/** What an agent needs to pick a template and fill it; drops thumbnails and other extras to save tokens. */
export function compactTemplate(t: Template): CompactTemplate {
  const fields: Record<string, CompactField> = {};
  for (const [name, f] of Object.entries(t.require_fields)) {
    const field: CompactField = { type: f.type };
    if (f.label) field.label = f.label;
    if (f.max !== undefined) field.max = f.max;
    fields[name] = field;
  }
  return { id: t.id, title: t.title, credit: t.credit, category: t.category, fields };
}

/** Checks one public-media-URL field; throws UserInputError naming `field` when the URL is not acceptable. */
export type MediaUrlCheck = (field: string, value: string) => void | Promise<void>;

/**
 * UTF-16 length. The spec does not say how `max` counts; this count is never below the code-point count, so a
 * value that passes here passes either way (an emoji-heavy value may be refused a little early).
 */
const length = (s: string) => s.length;

/**
 * Field types whose value is text (spec: "Template field types seen: input, image, textarea"). Every other
 * type, `image` and any type the spec does not show (`video`, `audio`, `select`…), is treated as a media
 * URL the platform may fetch: guessing that an unknown type is harmless text is the unsafe side.
 */
export const TEXT_FIELD_TYPES: ReadonlySet<string> = new Set(['input', 'textarea']);

/**
 * The spec's rules for the dynamic fields of POST /content-library/generate: every require_fields key sent
 * and non-empty, no other keys, `max` lengths. Invariant 7: a non-text field (see TEXT_FIELD_TYPES) must
 * be a public http(s) URL; a text field is free text, but if its value is URL-shaped (what a URL parser
 * reads as a fetchable URL, src/guards/url-shaped.ts) it must pass the same guard, because nothing tells us
 * the platform will not fetch it. Values are checked raw (a padded URL is refused), so what is sent is what
 * was checked.
 * @throws UserInputError naming `fields.<key>`
 */
export async function checkTemplateFields(
  template: Template,
  fields: Record<string, string>,
  checkUrl: MediaUrlCheck,
): Promise<void> {
  const spec = template.require_fields;
  const names = Object.keys(spec);
  for (const key of Object.keys(fields)) {
    if (!Object.hasOwn(spec, key)) {
      throw new UserInputError(
        `fields.${key}`,
        `not a field of this template (its fields: ${names.join(', ') || 'none'})`,
      );
    }
  }
  for (const key of names) {
    const value = fields[key];
    if (value === undefined || value.trim() === '') {
      throw new UserInputError(`fields.${key}`, `required by template "${template.title}"`);
    }
  }
  for (const [key, f] of Object.entries(spec)) {
    const value = fields[key]!;
    if (f.max !== undefined && length(value) > f.max) {
      throw new UserInputError(`fields.${key}`, `at most ${f.max} characters (got ${length(value)})`);
    }
    const type = f.type.toLowerCase();
    if (TEXT_FIELD_TYPES.has(type)) {
      if (isUrlShaped(value)) await checkUrl(`fields.${key}`, value);
    } else if (type === 'image') {
      await checkUrl(`fields.${key}`, value);
    } else {
      try {
        await checkUrl(`fields.${key}`, value);
      } catch (err) {
        if (!(err instanceof UserInputError)) throw err;
        throw new UserInputError(
          err.field,
          `field type "${f.type}" is not one the spec shows, so its value is treated as a media URL: ${err.rule}`,
        );
      }
    }
  }
}
