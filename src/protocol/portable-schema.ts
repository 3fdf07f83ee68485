/**
 * Tool schemas as sent in tools/list, without a root `$schema`: SDK v2 emits zod's
 * `"$schema": "https://json-schema.org/draft/2020-12/schema"` on every input and output schema, which OpenAI
 * strict function calling and Gemini function declarations reject (frameworks then patch it out or fall back to
 * non-strict mode) and which costs ~10 tokens per schema in every host's context. Validation is untouched: only
 * the JSON Schema view of the zod object changes.
 */

interface JsonSchemaConverter {
  input(options: unknown): Record<string, unknown>;
  output(options: unknown): Record<string, unknown>;
}
interface StandardProps {
  jsonSchema?: JsonSchemaConverter;
  [k: string]: unknown;
}

function withoutDialect(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

/** The same schema object whose JSON Schema view has no root `$schema`. */
export function portableSchema<T extends object>(schema: T): T {
  const std = (schema as { '~standard'?: StandardProps })['~standard'];
  const convert = std?.jsonSchema;
  if (!std || !convert) return schema;
  const standard: StandardProps = {
    ...std,
    jsonSchema: {
      input: (o) => withoutDialect(convert.input(o)),
      output: (o) => withoutDialect(convert.output(o)),
    },
  };
  return new Proxy(schema, {
    get: (target, prop, receiver) => (prop === '~standard' ? standard : Reflect.get(target, prop, receiver)),
  });
}
