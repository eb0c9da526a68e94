#!/usr/bin/env bash
# Builds the wasm bindings for the browser: cargo (wasm-release profile) → wasm-bindgen
# (--target web, the exact CLI version of the crate) → wasm-opt from the npm `binaryen`
# package. Output: web/src/generated/wasm/.
source "$(dirname "$0")/lib.sh"
ensure_rust
ensure_wasm_bindgen
ensure_npm_deps
say "building schedlab-wasm"
cargo build --quiet -p schedlab-wasm --target wasm32-unknown-unknown --profile wasm-release
out=web/src/generated/wasm
rm -rf "$out" && mkdir -p "$out"
wasm-bindgen --target web --weak-refs --out-dir "$out" target/wasm32-unknown-unknown/wasm-release/schedlab_wasm.wasm
# -ocimfs 1000: binaryen inlines a function with one caller whatever its size by default, which
# merged the whole load path into one 100 KB `simhandle_load`; V8 recompiles a hot function as a
# whole, and that one kept TurboFan busy while the simulation's first steps waited for their own
# code. Capped, the largest function is a fifth of that and a cold page's first run of benchmark
# (b) ~9 % faster (docs/wasm-performance.md); a warm run is unchanged.
say "wasm-opt -O3"
node_modules/.bin/wasm-opt -O3 --one-caller-inline-max-function-size 1000 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  "$out/schedlab_wasm_bg.wasm" -o "$out/schedlab_wasm_bg.wasm"
ls -l "$out"/*.wasm
