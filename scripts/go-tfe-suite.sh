#!/usr/bin/env bash
# go-tfe's own integration tests against PolicyHub (`npm run test:go-tfe`, ADR 0021).
#
# Debian packages go-tfe with its tests (golang-github-hashicorp-go-tfe-dev) and its dependencies;
# they are built with Debian's Go in GOPATH mode, offline. The script starts the system the way
# `npm start` does, with API_VOCABULARY=tfe, on a free port and a temporary DATA_DIR (and a fresh
# database in DATABASE_URL's server when that is set, else the embedded Postgres), runs the tests
# listed in scripts/go-tfe/expected.txt against it as the site admin, and fails on any difference
# from that list. The Go build cache lives under the OS temp dir, keyed by the package versions.
#
# Policy checks need a plan and an engine. scripts/go-tfe/executor.mjs uploads a plan JSON for
# every pending run (as an executor would), and npm start's built-in evaluator decides the checks:
# with the Sentinel CLI when one is installed (SENTINEL_BIN, or `sentinel` on PATH), else with
# scripts/go-tfe/literal-rule-engine.mjs, which decides go-tfe's `main = rule { true|false }`.
#
# Needs: apt-get install --no-install-recommends golang-go golang-github-hashicorp-go-tfe-dev
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
expected="$root/scripts/go-tfe/expected.txt"
src=/usr/share/gocode/src/github.com/hashicorp/go-tfe # only to check the package is installed

if ! command -v go >/dev/null 2>&1 || [ ! -d "$src" ]; then
  echo "go-tfe suite: needs Debian's golang-go and golang-github-hashicorp-go-tfe-dev" >&2
  echo "  apt-get install --no-install-recommends golang-go golang-github-hashicorp-go-tfe-dev" >&2
  exit 1
fi

tfe_version=$(dpkg-query -W -f='${Version}' golang-github-hashicorp-go-tfe-dev)
go_version=$(go env GOVERSION)
cache="${TMPDIR:-/tmp}/policyhub-go-tfe/${tfe_version//[^A-Za-z0-9.+-]/_}-${go_version}"
mkdir -p "$cache/gopath"
export GO111MODULE=off GOPATH="$cache/gopath:/usr/share/gocode" GOCACHE="$cache/gocache" \
  GOPROXY=off GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0

echo "== go-tfe $tfe_version with $go_version (GOPATH mode, cache $cache)"
started=$SECONDS
go test -c -o "$cache/go-tfe.test" github.com/hashicorp/go-tfe
echo "built in $((SECONDS - started)) s"

# The test binary runs from scripts/go-tfe/, which holds the fixture directory the tests read
# (test-fixtures/config-version); Debian's package ships the tests without their fixtures.
# Tests to run: the top-level names of every entry not marked not-run.
run_regex="^($(grep -E '^(pass|skip|fail)[[:space:]]' "$expected" | awk '{print $2}' | cut -d/ -f1 | sort -u | paste -sd'|'))\$"

work=$(mktemp -d)
chmod 755 "$work" # as root, the embedded Postgres runs as "postgres" and must reach DATA_DIR
log="$work/start.log"
db_name=""
pid=""
executor_pid=""
cleanup() {
  if [ -n "$executor_pid" ] && kill -0 "$executor_pid" 2>/dev/null; then
    kill -TERM "$executor_pid" 2>/dev/null || true
    wait "$executor_pid" 2>/dev/null || true
  fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$db_name" ]; then dropdb --if-exists --force --maintenance-db="$DATABASE_URL" "$db_name" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
token="ph.gotfe.$(node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')"
database_url=""
if [ -n "${DATABASE_URL:-}" ]; then
  db_name="policyhub_gotfe_$(node -e 'console.log(require("crypto").randomBytes(6).toString("hex"))')"
  createdb --maintenance-db="$DATABASE_URL" "$db_name"
  database_url=$(DB="$db_name" node -e 'const u=new URL(process.env.DATABASE_URL);u.pathname="/"+process.env.DB;console.log(u.href)')
fi

engine=()
if [ -n "${SENTINEL_BIN:-}" ] || command -v sentinel >/dev/null 2>&1; then
  engine_name="the Sentinel CLI (${SENTINEL_BIN:-$(command -v sentinel)})"
else
  engine_name="scripts/go-tfe/literal-rule-engine.mjs (no Sentinel CLI here)"
  engine=(EVALUATOR_COMMAND="[\"$(command -v node)\",\"$root/scripts/go-tfe/literal-rule-engine.mjs\"]")
fi

echo "== starting PolicyHub (API_VOCABULARY=tfe) on 127.0.0.1:$port; policy checks by $engine_name"
env -u DATABASE_URL -u REDIS_URL -u KAFKA_BROKERS -u S3_ENDPOINT -u EVALUATOR_COMMAND \
  ${database_url:+DATABASE_URL="$database_url"} "${engine[@]}" \
  API_VOCABULARY=tfe PORT="$port" HOST=127.0.0.1 DATA_DIR="$work/data" OPS_PORT=0 RUNS_GRPC_ADDR=127.0.0.1:0 \
  SITE_ADMIN_TOKEN="$token" LOG_LEVEL=warn \
  node --conditions=@policyhub/source --import tsx --import @policyhub/telemetry/register \
  embedded/src/main.ts >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" 2>/dev/null; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then
    sed "s/$token/***/g" "$log"
    echo "PolicyHub exited before answering" >&2
    exit 1
  fi
  sleep 0.5
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" || { sed "s/$token/***/g" "$log"; exit 1; }

# The executor works as a second site admin, so its polling has its own rate-limit budget.
api="http://127.0.0.1:$port/api/v2"
data() { node -pe 'const d = JSON.parse(require("fs").readFileSync(0)).data; d.attributes?.token ?? d.id'; }
executor_id=$(curl -fsS -X POST "$api/admin/users" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/vnd.api+json' \
  -d '{"data":{"type":"users","attributes":{"username":"go-tfe-executor","email":"executor@go-tfe.example","is-site-admin":true}}}' \
  | data)
executor_token=$(curl -fsS -X POST "$api/users/$executor_id/authentication-tokens" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/vnd.api+json' | data)
POLICYHUB_ADDRESS="http://127.0.0.1:$port" POLICYHUB_TOKEN="$executor_token" \
  node scripts/go-tfe/executor.mjs >"$work/executor.log" 2>&1 &
executor_pid=$!

echo "== go test -run '$run_regex'"
started=$SECONDS
set +e
(cd "$root/scripts/go-tfe" && TFE_ADDRESS="http://127.0.0.1:$port" TFE_TOKEN="$token" \
  go tool test2json -p go-tfe "$cache/go-tfe.test" -test.v -test.run "$run_regex" -test.timeout 10m) \
  >"$work/events.jsonl" 2>"$work/stderr.log"
set -e
echo "tests ran in $((SECONDS - started)) s"
cp "$work/events.jsonl" "$cache/last-run.jsonl"
if [ -s "$work/stderr.log" ]; then sed "s/$token/***/g" "$work/stderr.log" >&2; fi
echo "executor: $(grep -c ': 200$' "$work/executor.log" || true) plans uploaded"
node scripts/go-tfe/check.mjs "$expected" <"$work/events.jsonl"
