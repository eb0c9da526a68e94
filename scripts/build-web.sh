#!/usr/bin/env bash
# `npm run build`: the wasm bindings, then the static site in web/dist (relative paths: any
# static host can serve it from any path).
source "$(dirname "$0")/lib.sh"
bash scripts/build-wasm.sh
say "vite build"
node node_modules/vite/bin/vite.js build --config web/vite.config.ts --logLevel warn
say "bundle sizes (gzip)"
for f in web/dist/assets/*.js web/dist/assets/*.wasm; do
  printf '%-60s %8d bytes  %8d gz\n' "$f" "$(wc -c < "$f")" "$(gzip -c "$f" | wc -c)"
done
