/**
 * The metric hooks (issue 30 item 2, docs/operate.md "Metrics"): one call per place something worth counting
 * happens (`metrics.toolCall(tool, outcome, seconds)`). This module imports nothing: with metrics off (the default)
 * every hook is a call to an empty function and no OpenTelemetry module is loaded. `startMetrics`
 * (metrics-start.ts) installs the real instruments (metrics-instruments.ts) only when the operator turned them on.
 *
 * Labels are low-cardinality by construction: tool names, outcomes, rule names, HTTP status and route templates,
 * and the caller's owner id on the credit counters only (one series per person and tool). Never a key, a token,
 * a URL, an id of a job or a body.
 */

/** How a tools/call ended, as an operator counts it. `tool_error` = any other `isError` result. */
export type ToolOutcome = 'ok' | 'tool_error' | 'refused' | 'invalid_input' | 'input_required';

/** What the hooks feed: the real instruments when on. */
export interface MetricsSink {
  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void;
  /** Another MCP request (resources/read): `errorType` = the JSON-RPC error code it failed with, as a string. */
  operation(method: string, errorType: string | undefined, seconds: number): void;
  admissionRefused(tool: string, rule: string): void;
  /** `path` as requested (the sink keeps only its route template: metrics-route-template.ts). */
  platformResponse(method: string, path: string, status: number | undefined, error: string, seconds: number): void;
  creditsQuoted(tool: string, owner: string | undefined, credits: number): void;
  /**
   * What the platform newly reported for a job: the growth of its charge and of its refund since the record this
   * instance read (settle's submit answer, then each status read that changed a figure). Counted when reported,
   * not when the job ends, so a charge or refund that arrives after completion is counted too; a figure the
   * platform lowers is not subtracted (counters only grow; the audit and the spend report hold the exact figures).
   */
  creditsReported(tool: string, owner: string | undefined, chargedDelta: number, refundedDelta: number): void;
  eventDelivery(outcome: 'delivered' | 'retry' | 'gave_up', lagSeconds: number | undefined): void;
  storeCall(op: string, outcome: 'ok' | 'error' | 'timeout', seconds: number): void;
}

let sink: MetricsSink | undefined;

/** Installs the instruments (metrics-start.ts), or removes them (undefined: tests, shutdown). */
export function setMetricsSink(next: MetricsSink | undefined): void {
  sink = next;
}

/** True once the instruments are installed: callers that would wrap something (the store) do so only then. */
export function metricsOn(): boolean {
  return sink !== undefined;
}

/** The hooks. Each is a no-op while metrics are off. */
export const metrics: MetricsSink = {
  toolCall: (tool, outcome, seconds) => sink?.toolCall(tool, outcome, seconds),
  operation: (method, errorType, seconds) => sink?.operation(method, errorType, seconds),
  admissionRefused: (tool, rule) => sink?.admissionRefused(tool, rule),
  platformResponse: (method, path, status, error, seconds) =>
    sink?.platformResponse(method, path, status, error, seconds),
  creditsQuoted: (tool, owner, credits) => sink?.creditsQuoted(tool, owner, credits),
  creditsReported: (tool, owner, charged, refunded) => sink?.creditsReported(tool, owner, charged, refunded),
  eventDelivery: (outcome, lagSeconds) => sink?.eventDelivery(outcome, lagSeconds),
  storeCall: (op, outcome, seconds) => sink?.storeCall(op, outcome, seconds),
};
