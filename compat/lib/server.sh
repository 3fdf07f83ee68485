#!/bin/sh
# The server under test, its stderr appended to a log file (see server.mjs: whatever stderr mode a framework
# gives its child, the client process then prints only the framework's own output).
exec "$GENPLAT_COMPAT_NODE" "$GENPLAT_COMPAT_ENTRY" --sandbox 2>>"$GENPLAT_COMPAT_SERVER_LOG"
