/**
 * The MCP Apps (`io.modelcontextprotocol/ui`) this server ships, and the `_meta` a tool carries to link one.
 * Hosts read `_meta.ui.resourceUri` (spec 2026-01-26); older hosts read the flat `ui/resourceUri` key, so both
 * are set (as ext-apps' `registerAppTool` does).
 */
export const JOB_VIEWER_URI = 'ui://genplat/job-viewer';
export const PICKER_URI = 'ui://genplat/picker';
/** The campaign board: a grid of a campaign's items (players, varied fields, cost, status), filters, picks. */
export const BOARD_URI = 'ui://genplat/board';
/** The spend report (issue 30 item 5): table + chart of `genplat://spend/report`, which it reads itself. */
export const SPEND_REPORT_URI = 'ui://genplat/spend-report';

/** Tool `_meta` linking `uri`; `visibility: ['app']` hides a tool from the model (only the View may call it). */
export function uiMeta(uri: string, visibility?: ('model' | 'app')[]): Record<string, unknown> {
  return { ui: { resourceUri: uri, ...(visibility ? { visibility } : {}) }, 'ui/resourceUri': uri };
}
