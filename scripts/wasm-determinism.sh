#!/usr/bin/env bash
# Native and wasm give identical results: every scenario's summary (with its log digest) from
# the native CLI must equal the one from the same CLI compiled for wasm32-wasip1 and run under
# Node's WASI. The browser bindings reuse the same engine code.
source "$(dirname "$0")/lib.sh"
ensure_rust
cargo build --quiet --release -p schedlab-cli
cargo build --quiet --release -p schedlab-cli --target wasm32-wasip1
native=./target/release/schedlab
wasm=./target/wasm32-wasip1/release/schedlab.wasm
n=0; bad=0
for f in $(find scenarios -name '*.toml' | sort); do
  a=$("$native" simulate "$f")
  b=$(node --no-warnings scripts/run-wasi.mjs "$wasm" simulate "$f")
  n=$((n + 1))
  if [ "$a" != "$b" ]; then
    bad=$((bad + 1))
    echo "DIFFERS: $f"; diff <(echo "$a") <(echo "$b") | head -10
  fi
done
echo "wasm determinism: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
