#!/usr/bin/env bash
# MCP conformance suite (0.1.16, active suite) against the Streamable HTTP entry in the sandbox, on Node 22
# (the suite imports fs.globSync; mcp-notes 3.1). The server keeps bearer auth on: auth-proxy.mjs adds the
# header the suite cannot send. Failures not in conformance-baseline.yml (or baseline entries that now
# pass) fail the run. Expects `npm run build` to have run.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

GENPLAT_HTTP_TOKEN=$(node -e "process.stdout.write(require('node:crypto').randomBytes(24).toString('hex'))")
export GENPLAT_HTTP_TOKEN

GENPLAT_STATE_DIR="$work/state" node dist/src/index.js --sandbox --http --port 0 2>"$work/server.log" &
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

node scripts/ci/auth-proxy.mjs "$server_url" >"$work/proxy.url" &
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
npx -y -p node@22 node node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$proxy_url/mcp" --expected-failures conformance-baseline.yml -o conformance-results
