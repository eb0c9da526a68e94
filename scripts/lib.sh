# Shared helpers of the setup scripts (sourced, not run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# The Rust toolchain and the wasm target (rust-toolchain.toml names them; rustup installs
# what is missing from the crates registry mirror's dist server).
ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install Rust with rustup (https://rustup.rs) and retry" >&2
    exit 1
  fi
  for t in wasm32-unknown-unknown wasm32-wasip1; do
    if ! rustup target list --installed 2>/dev/null | grep -q "^$t\$"; then
      say "adding the $t target"
      rustup target add "$t"
    fi
  done
}

# wasm-bindgen-cli must match the wasm-bindgen crate exactly (Cargo.toml pins it).
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$ROOT/Cargo.toml")"
ensure_wasm_bindgen() {
  if wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    return
  fi
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2.5 minutes, once)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
}

# npm dependencies, installed when missing or older than the lockfile.
ensure_npm_deps() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "npm install"
    npm install --no-audit --no-fund
  fi
}

# Debian's Chromium for the Playwright e2e suite (playwright cannot download browsers here).
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then
    return
  fi
  say "installing Debian's chromium"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
}
