/** The MCP tasks extension's name and declaration, alone: every server declares it at construction, before the task handlers load. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What the server declares in `capabilities.extensions` (no settings are defined: an empty object). */
export const TASKS_CAPABILITY = { [TASKS_EXTENSION]: {} } as const;
