#!/usr/bin/env bash
# Inspector CLI (v1, @modelcontextprotocol/inspector-cli 1.0.3) against the stdio entry in the sandbox:
# tools/list, one tool call and one resource read, as a real external client. Expects `npm run build`.
# Quirk (mcp-notes 3.2): the CLI reads its package.json via a cwd-relative '../package.json', so it runs
# from dist/, whose parent has one.
set -euo pipefail
# The expected tool count is the reviewed tools/list snapshot (test/contract), not a number kept here.
export GENPLAT_TOOLS_SNAPSHOT="$(cd "$(dirname "$0")/../.." && pwd)/test/contract/__snapshots__/tools-list.json"
cd "$(dirname "$0")/../../dist"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inspect() {
  node ../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js --cli \
    -e GENPLAT_STATE_DIR="$work/state" node src/index.js --sandbox "$@" 2>"$work/stderr.txt" || {
    echo "inspector: $* failed:" >&2
    cat "$work/stderr.txt" >&2
    return 1
  }
}
# Each check reads the CLI's JSON from stdin and throws (exit 1) with a reason when it is not as expected.
check() { node -e "const r=JSON.parse(require('fs').readFileSync(0,'utf8')); $1" || exit 1; }

inspect --method tools/list >"$work/tools.json"
check "const n=r.tools.map(t=>t.name); if(n.length!==require(process.env.GENPLAT_TOOLS_SNAPSHOT).length||!n.includes('list_avatars')||!n.includes('wait_for_jobs')) throw new Error('tools/list: '+n.join(','));
console.error('inspector: tools/list -> '+n.length+' tools')" <"$work/tools.json"

inspect --method tools/call --tool-name list_avatars >"$work/call.json"
check "if(r.isError) throw new Error('list_avatars is an error: '+JSON.stringify(r.content));
const a=r.structuredContent&&r.structuredContent.avatars; if(!Array.isArray(a)||a.length===0) throw new Error('no avatars: '+JSON.stringify(r).slice(0,300));
console.error('inspector: tools/call list_avatars -> '+a.length+' avatars')" <"$work/call.json"

inspect --method resources/read --uri genplat://avatars >"$work/read.json"
check "const c=r.contents&&r.contents[0]; if(!c||c.uri!=='genplat://avatars'||!c.text||JSON.parse(c.text)===null) throw new Error('resources/read: '+JSON.stringify(r).slice(0,300));
console.error('inspector: resources/read genplat://avatars -> '+c.text.length+' chars of '+c.mimeType)" <"$work/read.json"
echo "inspector: OK" >&2
