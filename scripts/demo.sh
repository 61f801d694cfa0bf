#!/usr/bin/env bash
# Quick start, step 1: provisions the toolchain, builds, and starts the demo gateway
# (examples/node) on http://127.0.0.1:8787 with a local development token. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/toolchain.sh
pnpm install --frozen-lockfile --reporter=silent
pnpm turbo run build --filter=@svc/example-node... --output-logs=errors-only
# node itself, not `pnpm … start`: pnpm runs scripts through sh, which dies of the Ctrl-C and makes
# pnpm print failure lines; the demo closes on SIGINT/SIGTERM and exits 0.
cd examples/node
exec node --max-old-space-size=256 --max-semi-space-size=16 src/server.ts
