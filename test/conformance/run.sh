#!/usr/bin/env bash
# Runs the official MCP conformance suite (server scenarios, active suite) against our HTTP server
# with the conformance fixtures on the virtual board. Exits with the suite's status, which fails on
# an unlisted failure or a stale entry in baseline.yml.
set -uo pipefail
cd "$(dirname "$0")/../.."

port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
log=$(mktemp)
out=$(mktemp)
node --import tsx src/cli/main.ts --sim --http "127.0.0.1:${port}" --conformance-fixtures >/dev/null 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -f "$log" "$out"' EXIT

for _ in $(seq 1 300); do
  grep -q 'serving http' "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done

npx conformance server --url "http://127.0.0.1:${port}/mcp" \
  --expected-failures test/conformance/baseline.yml >"$out" 2>&1
status=$?
# The per-scenario summary (and anything that went wrong), not every scenario's banner.
sed -n '/=== SUMMARY ===/,$p' "$out"
if [ "$status" -ne 0 ]; then
  cat "$out"
  cat "$log"
fi
exit "$status"
