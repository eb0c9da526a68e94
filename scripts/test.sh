#!/usr/bin/env bash
# `npm test`: everything CI checks, from a fresh clone.
source "$(dirname "$0")/lib.sh"
ensure_rust

say "cargo fmt --check"
cargo fmt --all -- --check

say "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

say "engine dependency direction: no wasm/js/web/getrandom in schedlab-engine"
if cargo tree -p schedlab-engine -e normal --prefix none | grep -E '^(wasm-bindgen|js-sys|web-sys|getrandom) '; then
  echo "schedlab-engine must stay pure Rust (see ARCHITECTURE.md)" >&2
  exit 1
fi

say "schedlab-engine builds for wasm32-unknown-unknown"
cargo build --quiet -p schedlab-engine --target wasm32-unknown-unknown

say "native vs wasm32-wasip1 (Node WASI): identical summaries and digests"
bash scripts/wasm-determinism.sh

say "cargo test (engine unit + integration: goldens, fidelity, determinism, invariants; CLI)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cargo test --workspace 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
exit "$status"
