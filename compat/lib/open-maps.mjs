/**
 * Where an input schema is open (an object that accepts keys it does not list): what OpenAI strict mode cannot
 * express without changing the accepted values. Used to name the tool and field behind a strict fallback,
 * since a framework's own warning may name neither.
 */
export function openObjectPaths(schema, path = '') {
  if (!schema || typeof schema !== 'object') return [];
  if (Array.isArray(schema)) return schema.flatMap((s, i) => openObjectPaths(s, `${path}[${i}]`));
  const out = [];
  const isObject = schema.type === 'object' || schema.properties !== undefined;
  if (isObject && schema.additionalProperties !== false) {
    out.push(`${path || '(root)'} (additionalProperties: ${JSON.stringify(schema.additionalProperties ?? 'unset')})`);
  }
  for (const [k, v] of Object.entries(schema)) {
    if (v && typeof v === 'object') out.push(...openObjectPaths(v, k === 'properties' ? path : `${path}/${k}`));
  }
  return out;
}
