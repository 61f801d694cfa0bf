#!/usr/bin/env bash
# Quick start, step 2: the whole test suite, exactly as CI runs it on a fresh machine.
# Provisions Node 24 + 22, pnpm, Deno, Bun and Chromium itself, then builds, lints, typechecks,
# runs every test suite on Node 24 and Node 22 (and the package suites again with the clock moved
# 400 days ahead), the runtime and browser suites, and the
# published-package checks. Prints one summary line at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
source .ci/toolchain.sh
set +e
provision_runtimes
if [ "$(id -u)" = 0 ]; then provision_debian chromium redis-server faketime postgresql; fi

passed=0
failed=0
failures=()
output_log="$(mktemp)"
trap 'rm -f "$output_log"' EXIT
step() { # name command...
  local name="$1"
  shift
  echo
  echo "=== $name"
  local started=$SECONDS
  # pipefail (set by toolchain.sh) keeps the command's own exit status through tee.
  if "$@" 2>&1 | tee -a "$output_log"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - started)) s)"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "=== $name: FAILED ($((SECONDS - started)) s)"
  fi
}

node22_path="$(dirname "$NODE22_BIN")"
step "install (frozen lockfile)" pnpm install --frozen-lockfile --reporter=append-only
step "build" pnpm turbo run build --output-logs=errors-only
step "lint" pnpm lint
# Public API reports (packages/*/api/*.api.md, API Extractor on the built declarations): a changed
# public signature fails here until `pnpm api:update` rewrites its report in the same commit.
step "api reports (API Extractor)" pnpm api:check
step "typecheck" pnpm turbo run typecheck --output-logs=errors-only
step "docs:api (TypeDoc, warnings are errors)" pnpm docs:api
step "test (Node 24)" pnpm turbo run test --concurrency=1 --output-logs=new-only
# Same suites under Node 22: pnpm itself stays on Node 24, scripts see Node 22 first on PATH.
step "test (Node 22)" env PATH="$node22_path:$PATH" pnpm -r --no-bail --workspace-concurrency=1 run test
# The same suites a year and more ahead (libfaketime): a test that pins a date and also reads the
# real clock fails here on the day it is written, not the day after. The servers the suites start
# (redis-server, postgres, workerd) keep the real clock: redis-server and workerd do not start
# under libfaketime. The examples' suites pass this way too (examples/e2e in about 4 minutes); they
# are left out of this step for CI's time budget. Only the calendar moves: libfaketime's monotonic
# clock (FAKETIME_DONT_FAKE_MONOTONIC) stays real, as the tests' dates do not read it, and a faked
# one can step back when a new thread reads it during libfaketime's start-up, which Node aborts on
# (`Assertion failed: (now) >= (timer_base())` in a vitest worker, seen once in CI).
step "test (Node 24, clock +400 days)" env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime '+400 days' pnpm --filter @svc/gateway-kit --filter @svc/gateway-kit-redis --filter @svc/gateway-kit-postgres --filter @svc/gateway-kit-cloudflare --filter @svc/gateway-kit-mcp --filter @svc/gateway-check --filter @svc/workspace-client run test
step "Redis Cluster (3 primaries + 3 replicas: store suites, two instances, failover)" pnpm --filter @svc/gateway-kit-redis test:cluster
step "test (Deno)" pnpm -r --if-present --workspace-concurrency=1 run test:deno
step "test (Bun)" pnpm -r --if-present --workspace-concurrency=1 run test:bun
# examples/cloudflare under wrangler dev (workerd, Durable Objects): the contract walk and a restart on
# the same persistence folder. The Durable Object stores' conformance suites run in workerd as part
# of @svc/gateway-kit-cloudflare's own tests above.
step "test (Cloudflare Workers, workerd)" pnpm -r --if-present --workspace-concurrency=1 run test:workerd
step "test (browser, headless Chromium)" pnpm -r --if-present --workspace-concurrency=1 run test:browser
step "MCP conformance suite (examples/mcp, official @modelcontextprotocol/conformance, baseline)" pnpm --filter @svc/example-mcp conformance
step "check:package (publint, attw, consumers)" pnpm turbo run check:package --concurrency=1 --output-logs=errors-only
# Every page as its reader runs it: the public packages packed and installed with npm into empty
# folders, each README's code blocks and each doc's command lines run exactly as written.
step "entry points (packed packages, pages run as written)" node scripts/check-entry-points.mjs
step "size budgets (workspace-client, esbuild min+gzip)" pnpm size
step "bench (smoke)" pnpm -r --if-present --workspace-concurrency=1 run bench:smoke

echo
# vitest prints "Tests  N passed (M)" per run; sum them over every package and both Node versions.
vitest_passed=$(sed 's/\x1b\[[0-9;]*m//g' "$output_log" | grep -aoE 'Tests +[0-9]+ passed' | awk '{ sum += $2 } END { print sum + 0 }')
echo "vitest: ${vitest_passed:-0} tests passed over all packages on Node 24 and Node 22 (Deno, Bun and browser runs counted as suites)"
for name in "${failures[@]}"; do echo "failed: $name"; done
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
