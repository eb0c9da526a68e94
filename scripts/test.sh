#!/usr/bin/env bash
# `npm test`: everything CI checks, from a fresh clone.
source "$(dirname "$0")/lib.sh"
ensure_rust
ensure_npm_deps
ensure_chromium

say "cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path wasm-engine/fuzz/Cargo.toml -- --check

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

say "web: build (wasm + site), typecheck, lint, unit tests"
bash scripts/build-web.sh
for p in web/tsconfig.json web/tsconfig.worker.json web/tsconfig.node.json; do
  node node_modules/typescript/bin/tsc -p "$p" --noEmit
done
node node_modules/eslint/bin/eslint.js --max-warnings 0 web/src web/vite.config.ts e2e
web_log="$(mktemp)"
node node_modules/vitest/vitest.mjs run --config web/vite.config.ts 2>&1 | tee "$web_log"
web_status=${PIPESTATUS[0]}
[ "$web_status" -eq 0 ] || exit "$web_status"

say "e2e: Playwright in Debian's Chromium against the built site"
e2e_log="$(mktemp)"
(cd e2e && node ../node_modules/@playwright/test/cli.js test --config playwright.config.ts) 2>&1 | tee "$e2e_log"
e2e_status=${PIPESTATUS[0]}
[ "$e2e_status" -eq 0 ] || exit "$e2e_status"

say "fuzz: every trace and scenario parser for a few seconds (scripts/fuzz.sh; nightly + cargo-fuzz)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}"

say "cargo test (engine unit + integration: goldens, fidelity, determinism, invariants; CLI)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cargo test --workspace 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo
# One closing line over every runner: cargo ("test result: ok. N passed; M failed"),
# vitest ("Tests  N passed"), Playwright ("N passed", "N failed"). Cargo counts a test that
# returned early for want of the third-party traces as passed; each printed a "SKIPPED (did not
# run)" line, and those are counted apart.
{
  awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
       END { print p + 0, f + 0 }' "$log"
  sed 's/\x1b\[[0-9;]*m//g' "$web_log" | awk '/^ *Tests +/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
       END { print p + 0, f + 0 }'
  sed 's/\x1b\[[0-9;]*m//g' "$e2e_log" | awk '/^ *[0-9]+ passed/ { p += $1 } /^ *[0-9]+ failed/ { f += $1 } END { print p + 0, f + 0 }'
} | awk -v skipped="$(grep -c '^SKIPPED (did not run)' "$log" || true)" '{ p += $1; f += $2 }
  END { printf "%d passed, %d failed", p - skipped, f;
        if (skipped > 0) printf ", %d did not run (SKIPPED above: they need SCHEDLAB_THIRD_PARTY_TRACES)", skipped;
        printf "\n" }'
rm -f "$web_log" "$e2e_log"
exit "$status"
