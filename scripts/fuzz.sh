#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 15 s each, every target)
# scripts/fuzz.sh --reseed                           (rebuild the committed corpus from the seeds)
#
# Builds the cargo-fuzz targets of wasm-engine/fuzz (one per parser: tracefs, perf_script,
# eevdf_dump, cpu_avg_dump, balance_dump, systrace_html, chunking, dat, perfetto, layout, scenario; and replay, the shadow generator on
# tracefs text) and runs each for a bounded time from its committed corpus
# (wasm-engine/fuzz/corpus/<target>/; new finds go to a scratch corpus under the target dir, not
# into git). Exits non-zero when any target crashed; the crashing input stays in
# wasm-engine/fuzz/artifacts/<target>/ and the command to replay it is printed.
#
# Needs the nightly toolchain (installed with rustup when missing) and cargo-fuzz (installed once,
# about 1.5 minutes). FUZZ_UPDATE_CORPUS=1 merges what a run found into the committed corpus
# (edge coverage, see update_corpus).
source "$(dirname "$0")/lib.sh"

FUZZ_DIR=wasm-engine/fuzz
TARGETS=(tracefs perf_script eevdf_dump cpu_avg_dump balance_dump systrace_html chunking dat perfetto layout scenario replay)
CARGO_FUZZ_VERSION=0.13.2
FUZZ_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz"

# Extra libFuzzer flags per target: the scenario target's dictionary of schema keys.
extra() {
  case "$1" in
    scenario) echo "-dict=$FUZZ_DIR/scenario.dict" ;;
  esac
}

# Largest input libFuzzer generates, per target (the seeds are slices of a few KiB).
max_len() {
  case "$1" in
    dat) echo 65536 ;;
    scenario) echo 20000 ;;
    layout) echo 4096 ;;
    *) echo 16384 ;;
  esac
}

ensure_fuzz_tools() {
  if ! rustup toolchain list 2>/dev/null | grep -q '^nightly-'; then
    say "installing the nightly toolchain (cargo-fuzz needs it for libFuzzer's instrumentation)"
    if ! rustup toolchain install nightly --profile minimal --no-self-update; then
      echo "fuzz: could not install the nightly toolchain with rustup; the fuzz step cannot run" >&2
      exit 1
    fi
  fi
  if ! cargo fuzz --version 2>/dev/null | grep -q " $CARGO_FUZZ_VERSION\$"; then
    say "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 1.5 minutes, once)"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
}

fuzz() {
  # -s none: the engine has no unsafe code; -a: overflow checks and debug assertions stay on.
  cargo +nightly fuzz "$1" --fuzz-dir "$FUZZ_DIR" --target-dir "$FUZZ_TARGET_DIR" -s none -a "${@:2}"
}

# Replaces the committed corpus of target $1 by the smallest set of it and of the inputs in $2
# that covers the same edges (-use_counters=0: hit counts do not count, which keeps it to a few
# hundred small files). For dat only inputs under 8 KiB join (its seeds are 9 to 45 KiB).
update_corpus() {
  local t=$1 found=$2 pool merged
  pool="$(mktemp -d)"
  merged="$(mktemp -d)"
  cp "$FUZZ_DIR/corpus/$t"/* "$pool/"
  if [ "$t" = dat ]; then
    find "$found" -type f -size -8k -exec cp {} "$pool/" \;
  else
    cp "$found"/* "$pool/" 2>/dev/null || true
  fi
  fuzz run "$t" "$merged" "$pool" -- -merge=1 -use_counters=0 -max_len="$(max_len "$t")" 2>&1 | grep -E '^MERGE-OUTER: .* new files' || true
  rm -rf "$FUZZ_DIR/corpus/$t" "$pool"
  mv "$merged" "$FUZZ_DIR/corpus/$t"
  chmod 755 "$FUZZ_DIR/corpus/$t"
}

ensure_fuzz_tools

if [ "${1:-}" = "--reseed" ]; then
  seeds="$(mktemp -d)"
  trap 'rm -rf "$seeds"' EXIT
  python3 "$FUZZ_DIR/seeds.py" "$seeds"
  fuzz build
  for t in "${TARGETS[@]}"; do
    say "corpus of $t: seeds minimized with cargo fuzz cmin"
    rm -rf "$FUZZ_DIR/corpus/$t"
    mkdir -p "$FUZZ_DIR/corpus/$t"
    cp "$seeds/$t"/* "$FUZZ_DIR/corpus/$t/"
    fuzz cmin "$t" "$FUZZ_DIR/corpus/$t" -- -max_len="$(max_len "$t")" 2>&1 | grep -E '^(MERGE-OUTER|INFO: Seed)' || true
  done
  du -sh "$FUZZ_DIR/corpus"
  exit 0
fi

secs="${1:-15}"
shift || true
[ "$#" -gt 0 ] && TARGETS=("$@")
case "$secs" in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...] | --reseed" >&2; exit 2 ;; esac

say "building the fuzz targets (nightly, libFuzzer)"
fuzz build

failed=()
for t in "${TARGETS[@]}"; do
  say "fuzzing $t for ${secs} s"
  scratch="$FUZZ_TARGET_DIR/corpus/$t"
  mkdir -p "$scratch" "$FUZZ_DIR/artifacts/$t"
  log="$FUZZ_TARGET_DIR/$t.log"
  if fuzz run "$t" "$scratch" "$FUZZ_DIR/corpus/$t" -- \
    -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len="$(max_len "$t")" -print_final_stats=1 \
    $(extra "$t") >"$log" 2>&1; then
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units)' "$log" | tail -2 || true
    if [ "${FUZZ_UPDATE_CORPUS:-}" = 1 ]; then
      update_corpus "$t" "$scratch"
    fi
  else
    failed+=("$t")
    grep -E -A12 "panicked at|ERROR: libFuzzer|SUMMARY|^error" "$log" | head -40 >&2 || true
    echo "fuzz: $t failed (full log: $log); crashing input(s):" >&2
    ls -1 "$FUZZ_DIR/artifacts/$t" >&2 || true
    echo "replay: cargo +nightly fuzz run --fuzz-dir $FUZZ_DIR -s none -a $t $FUZZ_DIR/artifacts/$t/<file>" >&2
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
say "fuzz: ${#TARGETS[@]} targets ran ${secs} s each without a crash"
