#!/usr/bin/env bash
# `npm start`: installs what is missing (Rust wasm target, wasm-bindgen-cli of the pinned
# version, npm dependencies), builds the wasm engine and the site, and serves it at
# http://localhost:5173 with the default scenario open.
source "$(dirname "$0")/lib.sh"
ensure_rust
ensure_npm_deps
bash scripts/build-web.sh
say "schedlab is served at http://localhost:5173/  (Ctrl+C to stop)"
exec node node_modules/vite/bin/vite.js preview --config web/vite.config.ts --port 5173 --strictPort --host localhost
