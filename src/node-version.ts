/**
 * The Node.js the server needs: >= 22.13, the first 22.x where `node:sqlite` (the job store) loads without a
 * flag. Node 20 reached end of life in April 2026. Pure, so it is unit-tested; `node-gate.ts` applies it.
 */
export const MIN_NODE = [22, 13] as const;

/** @returns the start-up error for `version` ("v20.20.2"), or undefined when it is new enough. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return `genplat-mcp needs Node.js >= ${MIN_NODE.join('.')} (found ${version}): install Node.js 22 LTS or newer from https://nodejs.org, or point your MCP host's "command" at a newer node.`;
}

/** The Node.js OpenTelemetry's SDK 3.x (traces and metrics, src/telemetry/) declares it needs. */
export const MIN_NODE_TELEMETRY = [22, 15] as const;

/**
 * @returns the start-up problem when telemetry (`what`: the setting that turned it on) is on under a Node.js older
 * than the SDK supports, or undefined. Refused at start, naming the setting, rather than failing later inside the
 * SDK while the server already serves.
 */
export function telemetryNodeProblem(version: string, what: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [needMajor, needMinor] = MIN_NODE_TELEMETRY;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `${what}: OpenTelemetry (traces and metrics) needs Node.js >= ${MIN_NODE_TELEMETRY.join('.')} (found ${version}); upgrade Node.js, or turn telemetry off (unset it, or OTEL_SDK_DISABLED=true)`;
}
