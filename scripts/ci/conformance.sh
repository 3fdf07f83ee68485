#!/usr/bin/env bash
# MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12: the first line with 2026-07-28
# scenarios; 0.1.16, the "latest" tag, knows only 2025) against the Streamable HTTP entry in the sandbox,
# once per protocol era, each with the requirement set of its revision:
#   --requirements 2025-11-25  the suite's client opens with `initialize`
#   --requirements 2026-07-28  it opens with `server/discover` (the 2026 set also runs the tasks extension
#                              scenarios, unscored by the suite but judged by our baseline)
# The server keeps bearer auth on: auth-proxy.mjs adds the header the suite cannot send. Failures not in
# conformance-baseline.yml (or baseline entries that now pass) fail the run. Expects `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The pinned Node 22 (devDependency `node`): the suite imports fs.globSync (Node >= 22, mcp-notes 3.1).
node=node_modules/.bin/node

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

GENPLAT_HTTP_TOKEN=$("$node" -e "process.stdout.write(require('node:crypto').randomBytes(24).toString('hex'))")
export GENPLAT_HTTP_TOKEN

# Both eras send ~250 requests in ~10 s from the one token; the production default (120 per minute per token)
# would answer 429 half-way and turn generic scenarios into failures. The limiter itself is tested in test/http.
GENPLAT_HTTP_RATE_LIMIT=100000 GENPLAT_STATE_DIR="$work/state" \
  "$node" dist/src/index.js --sandbox --http --port 0 2>"$work/server.log" &
pids+=($!)
server_url=""
for _ in $(seq 1 100); do
  server_url=$(sed -n 's/.*ready on \(http:[^ ]*\)\/mcp.*/\1/p' "$work/server.log" | head -1)
  [ -n "$server_url" ] && break
  sleep 0.1
done
if [ -z "$server_url" ]; then
  echo "conformance: the HTTP server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
fi

"$node" scripts/ci/auth-proxy.mjs "$server_url" >"$work/proxy.url" &
pids+=($!)
proxy_url=""
for _ in $(seq 1 50); do
  proxy_url=$(head -1 "$work/proxy.url" 2>/dev/null || true)
  [ -n "$proxy_url" ] && break
  sleep 0.1
done
[ -n "$proxy_url" ] || { echo "conformance: the auth proxy did not start" >&2; exit 1; }

echo "conformance: server $server_url/mcp via $proxy_url/mcp" >&2
rm -rf conformance-results
status=0
for era in 2025-11-25 2026-07-28; do
  start=$(date +%s%N)
  # Both eras run even when the first fails, so one CI log shows every regression.
  if "$node" node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "$proxy_url/mcp" \
    --requirements "$era" --expected-failures conformance-baseline.yml -o "conformance-results/$era" \
    >"$work/conformance-$era.txt" 2>&1; then
    verdict=OK
  else
    verdict=FAILED
    status=1
  fi
  # The summary and the baseline verdict; the per-scenario chatter stays in conformance-results/.
  sed -n '/=== SUMMARY ===/,$p' "$work/conformance-$era.txt"
  echo "conformance: era $era $verdict in $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
done
exit "$status"
