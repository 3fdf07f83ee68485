#!/usr/bin/env bash
# Packaging checks beyond vitest: manifest.json passes the official `mcpb validate`, and the bundle script
# (what `npm run bundle` runs after building) makes a .mcpb whose unpacked server answers tools/list in the
# sandbox with production dependencies only. npm pack → install → npx is test/e2e/pack.test.ts (npm test).
set -euo pipefail
cd "$(dirname "$0")/../.."

# The expected tool count is the reviewed tools/list snapshot (test/contract), not a number kept here.
export GENPLAT_TOOLS_SNAPSHOT="$(cd "$(dirname "$0")/../.." && pwd)/test/contract/__snapshots__/tools-list.json"
mcpb() { node node_modules/@anthropic-ai/mcpb/dist/cli/cli.js "$@"; }

mcpb validate manifest.json
node scripts/bundle.mjs  # npm test already built dist

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(node -p "require('./package.json').version")
mcpb unpack "genplat-mcp-$version.mcpb" "$work/bundle" >/dev/null
# Only production dependencies inside, and the entry runs from the unpacked folder as Claude Desktop runs it.
test ! -e "$work/bundle/node_modules/vitest" || { echo "package: dev dependencies in the bundle" >&2; exit 1; }
root=$PWD
# Inspector CLI quirk (mcp-notes 3.2): run from a folder whose parent has a package.json.
cd "$work/bundle/dist"
node "$root/node_modules/@modelcontextprotocol/inspector-cli/build/cli.js" --cli \
  -e GENPLAT_STATE_DIR="$work/state" -e GENPLAT_SANDBOX=1 node src/index.js \
  --method tools/list >"$work/tools.json" 2>"$work/stderr.txt" || { cat "$work/stderr.txt" >&2; exit 1; }
# The snapshot is as an MCP Apps host sees it; the Inspector declares no Apps, so the App-only Confirm tool is not listed.
node -e "const r=JSON.parse(require('fs').readFileSync(0,'utf8')); if(r.tools.length!==require(process.env.GENPLAT_TOOLS_SNAPSHOT).filter((t)=>t.name!=='confirm_paid_call'&&t.only!=='http').length) throw new Error('bundle tools/list: '+r.tools.length); console.error('package: the unpacked bundle answers tools/list ('+r.tools.length+' tools)')" <"$work/tools.json"
