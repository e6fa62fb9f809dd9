#!/usr/bin/env bash
# Starts the system with embedded defaults (no DATABASE_URL), pings it, stops it with Ctrl-C
# (SIGINT), checks Postgres stopped too, and starts it again on the same data.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
log="$data/start.log"
trap 'kill -INT "${pid:-0}" 2>/dev/null || true; rm -rf "$data"' EXIT

start() {
  DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn node --conditions=@policyhub/source --import tsx embedded/src/main.ts >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "npm start exited early"; exit 1; }
    sleep 0.5
  done
  cat "$log"; echo "the system did not answer ping"; exit 1
}

stop() {
  kill -INT "$pid"
  wait "$pid" || true
  if [ -f "$data/postgres/postmaster.pid" ]; then echo "Postgres still running after Ctrl-C"; exit 1; fi
}

start
token=$(sed -n 's/.*site-admin token: *//p' "$log")
[ -n "$token" ] || { cat "$log"; echo "no site-admin token printed"; exit 1; }
curl -fsS -X POST "http://127.0.0.1:$port/api/v2/organizations" \
  -H "Authorization: Bearer $token" -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"organizations","attributes":{"name":"smoke","email":"smoke@example.com"}}}' >/dev/null
stop
echo "first start: ok (ping, create organization, clean stop)"

start
curl -fsS "http://127.0.0.1:$port/api/v2/organizations/smoke" -H "Authorization: Bearer $token" >/dev/null \
  || { echo "data did not survive a restart"; exit 1; }
stop
echo "second start: ok (same token, data kept)"

start
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
start
curl -fsS "http://127.0.0.1:$port/api/v2/organizations/smoke" -H "Authorization: Bearer $token" >/dev/null \
  || { echo "data lost after a killed run"; exit 1; }
stop
echo "after SIGKILL: ok (orphaned Postgres cleaned up, data kept)"
