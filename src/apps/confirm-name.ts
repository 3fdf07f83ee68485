/** The App's Confirm button's tool name, alone: the bin's start-up names it without loading the tool (src/server-deferred.ts). */
export const CONFIRM_TOOL = 'confirm_paid_call';
