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
