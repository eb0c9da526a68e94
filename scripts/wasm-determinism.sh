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
n=0; bad=0; late_signals=0
for f in $(find scenarios -name '*.toml' | sort); do
  a=$("$native" simulate "$f")
  # Node 20's WASI sometimes dies of SIGSEGV/SIGTRAP inside wasi.start() after the program
  # has written all its output (seen on yield-storm, about 1 run in 3, with any wasm build;
  # not a wasm trap; the 4-VM KVM scenarios hit it most). A run killed by a signal whose
  # output is already byte-identical to the native one has finished its work and is accepted
  # (and counted); otherwise it is retried, at most 3 times. Any other failure, and any
  # difference in output, still fails.
  for attempt in 1 2 3; do
    set +e
    b=$(node --no-warnings scripts/run-wasi.mjs "$wasm" simulate "$f")
    rc=$?
    set -e
    [ "$rc" -lt 128 ] && break
    if [ -n "$b" ] && [ "$a" == "$b" ]; then
      echo "node killed by signal $((rc - 128)) on $f after writing output identical to native's: accepted" >&2
      late_signals=$((late_signals + 1))
      rc=0
      break
    fi
    echo "node killed by signal $((rc - 128)) on $f (attempt $attempt), retrying" >&2
  done
  [ "$rc" -eq 0 ] || { echo "wasm run of $f failed with exit $rc" >&2; exit 1; }
  n=$((n + 1))
  if [ "$a" != "$b" ]; then
    bad=$((bad + 1))
    echo "DIFFERS: $f"; diff <(echo "$a") <(echo "$b") | head -10
  fi
done
echo "wasm determinism: $((n - bad)) passed, $bad failed ($late_signals runs killed by Node after complete output)"
[ "$bad" -eq 0 ]
