/**
 * The SDK client's output-schema validator, compiled once per schema per test process instead of once per client.
 * Why: every harness and HTTP test client lists the tools and compiles all 23 output schemas with ajv again
 * (~70 ms of CPU at rest, measured with a wrapped `_compileOutputValidator`), and the suite starts well over a
 * thousand clients in each worker's long-lived process (isolate: false). The validation itself is unchanged: the
 * SDK's own ajv engine (`AjvJsonSchemaValidator`, its default) checks every structuredContent as before; only
 * its compiled functions are kept, keyed by the schema's JSON, as a long-running host keeps its client.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

const engine = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();

export const sharedValidator: jsonSchemaValidator = {
  getValidator<T>(schema: Parameters<jsonSchemaValidator['getValidator']>[0]): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let v = compiled.get(key);
    if (v === undefined) {
      v = engine.getValidator(schema);
      compiled.set(key, v);
    }
    return v as JsonSchemaValidator<T>;
  },
};
