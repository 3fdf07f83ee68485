#!/usr/bin/env bash
# Inspector CLI (v1, @modelcontextprotocol/inspector-cli 1.0.3) against the sandbox as a real external client,
# over stdio and over Streamable HTTP (bearer token): tools/list, one tool call and one resource read on each.
# This CLI is built on SDK v1, so it speaks the 2025-11-25 era only (initialize); the 2026-07-28 era is
# scripts/ci/modern-smoke.mjs (the v2 Client). Expects `npm run build`.
# Quirk (mcp-notes 3.2): the CLI reads its package.json via a cwd-relative '../package.json', so it runs
# from dist/, whose parent has one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# The expected tool count is the reviewed tools/list snapshot (test/contract), not a number kept here.
export GENPLAT_TOOLS_SNAPSHOT="$root/test/contract/__snapshots__/tools-list.json"
# The pinned Node 22 runs the CLI and the server (the server refuses Node < 22.13), whatever PATH says.
node="$root/node_modules/.bin/node"
cd "$root/dist"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# inspect <label> <target args...> -- <method args...>: the CLI's JSON on stdout, its stderr shown on failure.
inspect() {
  local label=$1
  shift
  "$node" ../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js --cli "$@" 2>"$work/stderr.txt" || {
    echo "inspector ($label): $* failed:" >&2
    cat "$work/stderr.txt" >&2
    return 1
  }
}
# Each check reads the CLI's JSON from stdin and throws (exit 1) with a reason when it is not as expected.
check() { "$node" -e "const r=JSON.parse(require('fs').readFileSync(0,'utf8')); $1" || exit 1; }

# smoke <label> <target args...>: the same three calls and checks on one transport.
smoke() {
  local label=$1
  shift
  local start
  start=$(date +%s%N)
  inspect "$label" "$@" --method tools/list >"$work/tools.json"
  # The Inspector CLI declares no MCP Apps: every tool but the App-only Confirm button (issue 18).
  check "const n=r.tools.map(t=>t.name); const want=require(process.env.GENPLAT_TOOLS_SNAPSHOT).filter(t=>t.name!=='confirm_paid_call'&&(t.only===undefined||t.only==='$label')).length; if(n.length!==want||n.includes('confirm_paid_call')||!n.includes('list_avatars')||!n.includes('wait_for_jobs')) throw new Error('tools/list: '+n.join(','));
console.error('inspector ($label): tools/list -> '+n.length+' tools')" <"$work/tools.json"

  inspect "$label" "$@" --method tools/call --tool-name list_avatars >"$work/call.json"
  check "if(r.isError) throw new Error('list_avatars is an error: '+JSON.stringify(r.content));
const a=r.structuredContent&&r.structuredContent.avatars; if(!Array.isArray(a)||a.length===0) throw new Error('no avatars: '+JSON.stringify(r).slice(0,300));
console.error('inspector ($label): tools/call list_avatars -> '+a.length+' avatars')" <"$work/call.json"

  inspect "$label" "$@" --method resources/read --uri genplat://avatars >"$work/read.json"
  check "const c=r.contents&&r.contents[0]; if(!c||c.uri!=='genplat://avatars'||!c.text||JSON.parse(c.text)===null) throw new Error('resources/read: '+JSON.stringify(r).slice(0,300));
console.error('inspector ($label): resources/read genplat://avatars -> '+c.text.length+' chars of '+c.mimeType)" <"$work/read.json"
  echo "inspector ($label): OK in $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
}

# stdio: the CLI spawns the server itself, once per call.
smoke stdio -e GENPLAT_STATE_DIR="$work/stdio-state" "$node" src/index.js --sandbox

# HTTP: one long-running server; the CLI sends the bearer header as any remote client would.
token=$("$node" -e "process.stdout.write(require('node:crypto').randomBytes(24).toString('hex'))")
GENPLAT_HTTP_TOKEN="$token" GENPLAT_STATE_DIR="$work/http-state" \
  "$node" src/index.js --sandbox --http --port 0 2>"$work/server.log" &
pids+=($!)
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/.*ready on \(http:[^ ]*\/mcp\).*/\1/p' "$work/server.log" | head -1)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "inspector: the HTTP server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
smoke http "$url" --transport http --header "Authorization: Bearer $token"
echo "inspector: OK" >&2
