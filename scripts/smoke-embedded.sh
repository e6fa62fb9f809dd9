#!/usr/bin/env bash
# The first hour, as a user meets it (CI runs this; about a minute):
#  1. a busy PORT is refused in one line (exit 2) before any data directory is created;
#  2. the system starts with embedded defaults (no DATABASE_URL), answers, stops quietly on Ctrl-C
#     (SIGINT to the whole process group, as a terminal sends it) with Postgres, starts again on
#     the same data with the same runs gRPC address, and recovers from a SIGKILL;
#  3. as root: `npm start` from a copy of the checkout under a 0700 directory (a home directory,
#     `mktemp -d`), where user postgres can reach neither the binaries nor the default DATA_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
chmod 755 "$work"
data="$work/data"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=$(free_port)
runs_port=$(free_port)
log="$work/start.log"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# --- 1. busy PORT
node -e 'require("net").createServer().listen(Number(process.argv[1]),"127.0.0.1")' "$port" &
holder=$!
sleep 0.5
set +e
out=$(DATA_DIR="$data" PORT="$port" OPS_PORT=0 RUNS_GRPC_ADDR="127.0.0.1:$runs_port" node --conditions=@policyhub/source --import tsx embedded/src/main.ts 2>&1)
status=$?
set -e
kill "$holder"; wait "$holder" 2>/dev/null || true
[ "$status" = 2 ] || { echo "$out"; echo "busy PORT: exit $status, expected 2"; exit 1; }
[ "$out" = "PORT $port is in use; set PORT to a free port" ] || { echo "$out"; echo "busy PORT: expected exactly one line"; exit 1; }
[ ! -e "$data" ] || { echo "busy PORT: the data directory was created anyway"; exit 1; }
echo "busy PORT: ok (one line, exit 2, nothing initialised)"

# --- 2. embedded defaults in this checkout
# `start <dir> [DATA_DIR]`: npm start's command in its own process group (a terminal job).
start() {
  local dir=$1
  : >"$log"
  (cd "$dir" && exec setsid env ${2:+DATA_DIR="$2"} PORT="$port" OPS_PORT=0 RUNS_GRPC_ADDR="127.0.0.1:$runs_port" LOG_LEVEL=warn \
    node --conditions=@policyhub/source --import tsx --import @policyhub/telemetry/register embedded/src/main.ts) >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 180); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "npm start exited early"; exit 1; }
    sleep 0.5
  done
  cat "$log"; echo "the system did not answer ping"; exit 1
}

# Ctrl-C: SIGINT to the process group; it must exit 0 and log nothing while stopping.
stop() {
  local before
  before=$(wc -l <"$log")
  kill -INT -- "-$pid"
  local status=0
  wait "$pid" || status=$?
  [ "$status" = 0 ] || { cat "$log"; echo "exit status $status after Ctrl-C"; exit 1; }
  if [ "$(wc -l <"$log")" != "$before" ]; then
    tail -n +"$((before + 1))" "$log"; echo "a deliberate stop printed the lines above"; exit 1
  fi
}

start "$repo" "$data"
token=$(sed -n 's/.*site-admin token: *//p' "$log")
[ -n "$token" ] || { cat "$log"; echo "no site-admin token printed"; exit 1; }
grep -q "RUNS_ADDR): 127.0.0.1:$runs_port" "$log" || { cat "$log"; echo "runs gRPC address not printed"; exit 1; }
[ "$(stat -c %a "$data/postgres-password")" = 600 ] || { echo "DATA_DIR/postgres-password is not 0600"; exit 1; }
curl -fsS -X POST "http://127.0.0.1:$port/api/v2/organizations" \
  -H "Authorization: Bearer $token" -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"organizations","attributes":{"name":"smoke","email":"smoke@example.com"}}}' >/dev/null
stop
if [ -f "$data/postgres/postmaster.pid" ]; then echo "Postgres still running after Ctrl-C"; exit 1; fi
echo "first start: ok (ping, create organization, quiet Ctrl-C, Postgres stopped)"

start "$repo" "$data"
curl -fsS "http://127.0.0.1:$port/api/v2/organizations/smoke" -H "Authorization: Bearer $token" >/dev/null \
  || { echo "data did not survive a restart"; exit 1; }
stop
echo "second start: ok (same token, same runs address, data kept)"

start "$repo" "$data"
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
start "$repo" "$data"
curl -fsS "http://127.0.0.1:$port/api/v2/organizations/smoke" -H "Authorization: Bearer $token" >/dev/null \
  || { echo "data lost after a killed run"; exit 1; }
stop
echo "after SIGKILL: ok (Postgres stopped with it, data kept)"

# --- 3. as root, from a checkout under a 0700 directory
if [ "$(id -u)" != 0 ]; then
  echo "root from a closed directory: skipped (not root)"
  exit 0
fi
closed=$(mktemp -d)  # 0700
trap 'cleanup; rm -rf "$closed"' EXIT
mkdir "$closed/policyhub"
# The working tree as a clone has it, plus the installed dependencies (hard links: fast).
tar -C "$repo" --exclude=node_modules --exclude=.data --exclude=.turbo --exclude=.git --exclude=dist -cf - . \
  | tar -C "$closed/policyhub" -xf -
cp -al "$repo/node_modules" "$closed/policyhub/" 2>/dev/null || cp -a "$repo/node_modules" "$closed/policyhub/"
start "$closed/policyhub"  # DATA_DIR: the default .data, inside the closed directory
cluster=$(node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    try { const j = JSON.parse(l); if (j.cluster) { console.log(j.cluster); break; } } catch {}
  }' "$log")
[ -n "$cluster" ] || { cat "$log"; echo "no log line says where the relocated cluster lives"; exit 1; }
trap 'cleanup; rm -rf "$closed" "$cluster" "$cluster.source"' EXIT
curl -fsS -X POST "http://127.0.0.1:$port/api/v2/organizations" \
  -H "Authorization: Bearer $(cat "$closed/policyhub/.data/site-admin-token")" -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"organizations","attributes":{"name":"closed","email":"closed@example.com"}}}' >/dev/null
stop
echo "root from a 0700 directory: ok (cluster in $cluster, quiet Ctrl-C)"
