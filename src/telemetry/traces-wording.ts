/** Every sentence the traces settings say (start-up problems: one line each, naming the variable and the rule). */
export const tracesWords = {
  unknownExporter: (unknown: readonly string[], known: readonly string[]) =>
    `OTEL_TRACES_EXPORTER: ${unknown.map((u) => `"${u}"`).join(', ')} is not an exporter this server has; use ${known.join(', ')} (comma-separated)`,
  endpointNotHttp: (variable: string) =>
    `${variable}: must be an http:// or https:// URL of an OTLP/HTTP receiver (e.g. http://localhost:4318)`,
  protocol: (variable: string) =>
    `${variable}: this server sends OTLP over HTTP (http/json); use http/json or http/protobuf, or leave it unset (grpc is not supported)`,
  notStarted: (err: unknown) =>
    `traces could not start (serving without them): ${err instanceof Error ? err.message : String(err)}`,
} as const;
