#!/usr/bin/env bash
# go-tfe's own integration tests against PolicyHub (`npm run test:go-tfe`, ADR 0021).
#
# Debian packages go-tfe with its tests (golang-github-hashicorp-go-tfe-dev) and its dependencies;
# they are built once per run with Debian's Go in GOPATH mode, offline, together with
# scripts/go-tfe/upstream_names_test.go (the names go-tfe 0.11.1 does not decode, see there). The
# Go build cache lives under the OS temp dir, keyed by the package and Go versions.
#
# Two runs, each against its own system started as `npm start` does (free port, temporary
# DATA_DIR, a fresh database in DATABASE_URL's server when that is set, else the embedded
# Postgres), as the site admin:
#   tfe   API_VOCABULARY=tfe, the whole installed suite except the tests listed as not-run in
#         scripts/go-tfe/expected.txt, expected as that file says;
#   spec  the default vocabulary, only the groups whose wire names differ between the profiles
#         (SPEC_GROUPS below), expected as expected.txt says except where
#         scripts/go-tfe/expected.spec.txt says otherwise.
# Each run prints go test's own counts (top-level tests and subtests) and fails on any difference
# from its expectations, in either direction. GO_TFE_JOBS (default 4) tests run at a time. While
# working on a feature: GO_TFE_RUN=<regex> narrows both runs to the matching top-level tests,
# GO_TFE_VOCABULARIES=tfe (or spec) runs one of the two.
#
# Runs and policy checks need a plan and an engine. scripts/go-tfe/executor.mjs uploads a plan JSON
# for every pending run (as an executor would), and npm start's built-in evaluator decides the
# checks: with the Sentinel CLI when one is installed (SENTINEL_BIN, or `sentinel` on PATH), else
# with scripts/go-tfe/literal-rule-engine.mjs, which decides go-tfe's `main = rule { true|false }`.
#
# Needs: apt-get install --no-install-recommends golang-go golang-github-hashicorp-go-tfe-dev
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
here="$root/scripts/go-tfe"
job_started=$SECONDS
pkg=github.com/hashicorp/go-tfe
src=/usr/share/gocode/src/$pkg

# Where the vocabulary profiles differ (ADR 0020): policy kinds and the agent attributes of policy
# sets and policies, the engine key and report of policy checks, the admin organization's timeout
# and sudo names.
SPEC_GROUPS='^(TestPolicySets|TestPolicySetParameters|TestParametersDelete|TestPolicies|TestPolicyChecks|TestOrganizations|TestUpstreamNames)'
# Changes the username and email of the account every test calls with: runs after all others.
RUN_LAST=TestUsersUpdate

if ! command -v go >/dev/null 2>&1 || [ ! -d "$src" ]; then
  echo "go-tfe suite: needs Debian's golang-go and golang-github-hashicorp-go-tfe-dev" >&2
  echo "  apt-get install --no-install-recommends golang-go golang-github-hashicorp-go-tfe-dev" >&2
  exit 1
fi

tfe_version=$(dpkg-query -W -f='${Version}' golang-github-hashicorp-go-tfe-dev)
go_version=$(go env GOVERSION)
cache="${TMPDIR:-/tmp}/policyhub-go-tfe/${tfe_version//[^A-Za-z0-9.+-]/_}-${go_version}"
work=$(mktemp -d)
chmod 755 "$work" # as root, the embedded Postgres runs as "postgres" and must reach DATA_DIR
pid=""
executor_pid=""
db_name=""
stop_system() {
  if [ -n "$executor_pid" ] && kill -0 "$executor_pid" 2>/dev/null; then
    kill -TERM "$executor_pid" 2>/dev/null || true
    wait "$executor_pid" 2>/dev/null || true
  fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$db_name" ]; then dropdb --if-exists --force --maintenance-db="$DATABASE_URL" "$db_name" || true; fi
  executor_pid="" pid="" db_name=""
}
trap 'stop_system; rm -rf "$work"' EXIT
binary="$work/go-tfe.test"
export GO111MODULE=off GOPATH="$cache/gopath:/usr/share/gocode" GOCACHE="$cache/gocache" \
  GOPROXY=off GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0

echo "== go-tfe $tfe_version with $go_version (GOPATH mode, cache $cache)"
started=$SECONDS
# The package as installed plus this repository's test file, first on GOPATH (a fixed path, so
# the build cache applies; the lock keeps concurrent jobs from rewriting it under each other).
mkdir -p "$cache"
(
  flock 9
  overlay="$cache/gopath/src/$pkg"
  rm -rf "$overlay"
  mkdir -p "$overlay"
  cp "$src"/*.go "$here"/*_test.go "$overlay"/
  go test -c -o "$binary" "$pkg"
) 9>"$cache/build.lock"
echo "built in $((SECONDS - started)) s"

engine=()
if [ -n "${SENTINEL_BIN:-}" ] || command -v sentinel >/dev/null 2>&1; then
  engine_name="the Sentinel CLI (${SENTINEL_BIN:-$(command -v sentinel)})"
else
  engine_name="scripts/go-tfe/literal-rule-engine.mjs (no Sentinel CLI here)"
  engine=(EVALUATOR_COMMAND="[\"$(command -v node)\",\"$here/literal-rule-engine.mjs\"]")
fi
random() { node -e "console.log(require('crypto').randomBytes($1).toString('$2'))"; }

# Starts the system in vocabulary $1 and its executor; sets port, token, pid, executor_pid.
start_system() {
  local vocabulary=$1 dir="$work/$1" database_url=""
  mkdir -p "$dir"
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  token="ph.gotfe.$(random 24 base64url)"
  if [ -n "${DATABASE_URL:-}" ]; then
    db_name="policyhub_gotfe_$(random 6 hex)"
    createdb --maintenance-db="$DATABASE_URL" "$db_name"
    database_url=$(DB="$db_name" node -e 'const u=new URL(process.env.DATABASE_URL);u.pathname="/"+process.env.DB;console.log(u.href)')
  fi
  echo "== starting PolicyHub (API_VOCABULARY=$vocabulary) on 127.0.0.1:$port; policy checks by $engine_name"
  env -u DATABASE_URL -u REDIS_URL -u KAFKA_BROKERS -u S3_ENDPOINT -u EVALUATOR_COMMAND \
    ${database_url:+DATABASE_URL="$database_url"} "${engine[@]}" \
    API_VOCABULARY="$vocabulary" PORT="$port" HOST=127.0.0.1 DATA_DIR="$dir/data" OPS_PORT=0 \
    RUNS_GRPC_ADDR=127.0.0.1:0 SITE_ADMIN_TOKEN="$token" LOG_LEVEL=warn \
    node --conditions=@policyhub/source --import tsx --import @policyhub/telemetry/register \
    embedded/src/main.ts >"$dir/start.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" 2>/dev/null; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      sed "s/$token/***/g" "$dir/start.log"
      echo "PolicyHub exited before answering" >&2
      exit 1
    fi
    sleep 0.5
  done
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v2/ping" || { sed "s/$token/***/g" "$dir/start.log"; exit 1; }

  # The executor works as a second site admin, so its polling has its own rate-limit budget.
  local api="http://127.0.0.1:$port/api/v2" executor_id executor_token
  data() { node -pe 'const d = JSON.parse(require("fs").readFileSync(0)).data; d.attributes?.token ?? d.id'; }
  executor_id=$(curl -fsS -X POST "$api/admin/users" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/vnd.api+json' \
    -d '{"data":{"type":"users","attributes":{"username":"go-tfe-executor","email":"executor@go-tfe.example","is-site-admin":true}}}' \
    | data)
  executor_token=$(curl -fsS -X POST "$api/users/$executor_id/authentication-tokens" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/vnd.api+json' | data)
  POLICYHUB_ADDRESS="http://127.0.0.1:$port" POLICYHUB_TOKEN="$executor_token" \
    node "$here/executor.mjs" >"$dir/executor.log" 2>&1 &
  executor_pid=$!
}

# Runs the tests selected for vocabulary $1 (in $work/$1.selected, less those listed as not-run)
# against a fresh system in that vocabulary and checks them against the expectation files given
# after it; returns the check's status.
run_vocabulary() {
  local vocabulary=$1 selected="$work/$1.selected" list="$work/$1.txt" dir="$work/$1" started
  shift
  grep -vxFf "$work/not-run.txt" "$selected" >"$list" || true
  if [ ! -s "$list" ]; then
    echo "== API_VOCABULARY=$vocabulary: no tests selected"
    return 0
  fi
  start_system "$vocabulary"
  echo "== go test: $(wc -l <"$list") top-level tests, ${GO_TFE_JOBS:-4} at a time"
  started=$SECONDS
  # The binary runs from scripts/go-tfe/, which holds the fixtures the tests read
  # (test-fixtures/); Debian's package ships the tests without them. Without GitHub credentials
  # the VCS and OAuth tests skip themselves, as listed.
  (cd "$here" && env -u GITHUB_TOKEN -u GITHUB_POLICY_SET_IDENTIFIER -u GITHUB_REGISTRY_MODULE_IDENTIFIER \
    TFE_ADDRESS="http://127.0.0.1:$port" TFE_TOKEN="$token" \
    node run-tests.mjs "$binary" "$list" --jobs "${GO_TFE_JOBS:-4}" --last "$RUN_LAST") \
    >"$dir/events.jsonl"
  echo "tests ran in $((SECONDS - started)) s; executor: $(grep -c ': 200$' "$dir/executor.log" || true) plans uploaded"
  stop_system
  cp "$dir/events.jsonl" "$cache/last-run-$vocabulary.jsonl"
  local expectations=()
  for file in "$@"; do expectations+=(--expected "$file"); done
  node "$here/check.mjs" --vocabulary "$vocabulary" --selected "$selected" --ran "$list" "${expectations[@]}" \
    <"$dir/events.jsonl"
}

"$binary" -test.list '.*' >"$work/all.txt"
grep -E '^not-run[[:space:]]' "$here/expected.txt" | awk '{print $2}' | sort -u >"$work/not-run.txt"
grep -E "${GO_TFE_RUN:-.}" "$work/all.txt" >"$work/tfe.selected" || true
grep -E "$SPEC_GROUPS" "$work/tfe.selected" >"$work/spec.selected" || true

status=0
vocabularies=${GO_TFE_VOCABULARIES:-tfe spec}
for vocabulary in $vocabularies; do
  case $vocabulary in
    tfe) run_vocabulary tfe "$here/expected.txt" || status=1 ;;
    spec) run_vocabulary spec "$here/expected.txt" "$here/expected.spec.txt" || status=1 ;;
    *) echo "GO_TFE_VOCABULARIES: unknown vocabulary $vocabulary (tfe, spec)" >&2; exit 2 ;;
  esac
done
echo
echo "go-tfe job ($vocabularies): $([ $status -eq 0 ] && echo 'every outcome as expected' || echo 'FAILED, see the differences above'); wall time $((SECONDS - job_started)) s"
exit $status
